// The open project as the engine describes it: the one place it is written.

import { api } from "../api/client";
import { ApiFailure } from "../api/transport";
import { attempt, needsFolder, notice, project, reviewOffer, tell } from "./store";

/** Asks the engine for the open project: shown, or with none open (the
 * desktop app), the open-folder screen. Returns whether one is open. */
export async function loadProject(): Promise<boolean> {
  try {
    project.value = await api.project();
    needsFolder.value = false;
    return true;
  } catch (e) {
    if (e instanceof ApiFailure && e.code === "no_project") needsFolder.value = true;
    else notice.value = { kind: "error", text: `Redline is not reachable: ${e instanceof Error ? e.message : e}` };
    return false;
  }
}

/** Takes the review-mode offer: every change other programs write in this
 * folder is held for review from now on. */
export async function acceptReviewOffer() {
  const saved = await attempt("Switching to review mode", () => api.updateSettings({ folder_settings: { outside_changes: "review" } }));
  if (!saved) return;
  if (reviewOffer.value !== false) reviewOffer.value = null;
  if (project.value) project.value = { ...project.value, outside_changes: "review" };
  tell("info", "Every change other programs write in this folder is now held for review (Settings can change it back)");
}
