// The window's decisions, wired: the one `Decisions` object (which owns the
// ledger, see `decisions.ts`) given the engine's calls and the window's
// signals, and the actions the keys and panels call.

import { api } from "../api/client";
import type { FileContent, Selection, Status } from "../api/types";
import { ask } from "./confirm";
import { Decisions } from "./decisions";
import { idle, refreshTree } from "./listing";
import { metrics } from "./metrics";
import { getEditor, goToNextFile, openPath, reloadOpen, takeAnswer } from "./navigation";
import { decidedNow, readsRendered } from "./redline";
import { attempt, currentHunk, dirtyPaths, hunkInfo, openFile, outsideAlert, reviewJobs, settling, tell } from "./store";

/** This window's decisions. */
export const decisions = new Decisions({
  decide: (id, body) => attempt(body.dry_run ? `Planning ${id}` : `Deciding ${id}`, () => api.decide(id, body)),
  decideMany: (body) => attempt("Deciding", () => api.decideMany(body)),
  takeStep: async (which) => {
    // Nothing to take is a word, not an error.
    const heads = await attempt("Reading the history", () => api.history());
    if (!heads) return undefined;
    if (!(which === "undo" ? heads.undo : heads.redo)) {
      tell("info", which === "undo" ? "Nothing to undo" : "Nothing to redo");
      return undefined;
    }
    return attempt(which === "undo" ? "Undoing" : "Redoing", () => (which === "undo" ? api.undo({}) : api.redo({})));
  },
  file: (path) => attempt(`Reloading ${path}`, () => api.file({ path })),
  view: getEditor,
  span: (id) => openFile.value?.hunks.find((h) => h.hunk_id === id),
  takeAnswer,
  decidedShown: (id, status) => {
    decidedNow.value = { id, status };
    return readsRendered(openFile.value);
  },
  showSettling(add, remove) {
    const next = new Set(settling.value);
    for (const id of add) next.add(id);
    for (const id of remove) next.delete(id);
    if (next.size !== settling.value.size || add.some((id) => !settling.value.has(id))) settling.value = next;
  },
  selected,
  ask,
  tell,
  idle,
  nextFile: (path, settling) => goToNextFile(path, 1, settling),
  unsaved: (path) => dirtyPaths.value.has(path),
  open: (path, id) => openPath(path, id),
  refresh: async (show) => {
    await Promise.all([refreshTree(), reloadOpen().then(() => show && getEditor()?.goTo(show))]);
  },
  label: hunkLabel,
  shown: (started, moved, acrossFiles) => (acrossFiles ? metrics.nextFileShown(started) : metrics.nextShown(started, moved)),
});

/** The pending hunks `selection` names, with their files, as the page knows them. */
function selected(selection: Selection): [string, string][] {
  const out: [string, string][] = [];
  for (const [id, h] of hunkInfo.value) {
    const hit =
      selection.kind === "hunks"
        ? selection.hunk_ids.includes(id)
        : h.job_id === selection.job_id &&
          (selection.kind === "job" || (selection.kind === "pattern" ? h.pattern === selection.pattern_id : !h.flags?.length));
    if (hit) out.push([id, h.path]);
  }
  return out;
}

/** Hunk `id` as people recognise it: its file and line (in `file`, the
 * engine's answer about the file it is in, when it lists it). */
function hunkLabel(id: string, file: FileContent) {
  const span = file.hunks.find((h) => h.hunk_id === id);
  const line = span ? span.line + 1 : hunkInfo.value.get(id)?.line;
  return line === undefined ? `the change in ${file.path}` : `the change at ${file.path}:${line}`;
}

/** Decides `id` (the current hunk when not given): see {@link Decisions.decide}. */
export async function decide(status: Status, id: string | null = currentHunk.value, withReason = false) {
  // Only a hunk in view is decided: never another file's, off-screen.
  if (!id) return;
  if (status !== "pending" && !pendingInView(id)) return tell("info", "No hunk of this file is left to decide");
  await decisions.decide(status, id, withReason);
}

/** Whether hunk `id` is pending in the open file: one of its line hunks,
 * or its move or deletion. */
export function pendingInView(id: string): boolean {
  const file = openFile.value;
  if (!file) return false;
  return file.state.op?.hunk_id === id || file.hunks.some((h) => h.hunk_id === id && h.status === "pending");
}

/** Undoes the engine's newest step (see {@link Decisions.undo}). */
export function undoDecision() {
  return decisions.undo();
}

/** Does again the step undone last. */
export function redoDecision() {
  return decisions.redo();
}

/** Decides many hunks at once as one step (`label` says which, for the
 * message and its undo): a pattern, every unflagged hunk of a job. */
export function decideMany(selection: Selection, status: "accepted" | "rejected", label: string) {
  return decisions.decideMany(selection, status, label);
}

/** Accepts (or rejects) every pending hunk of the current hunk's pattern. */
export async function decideCurrentPattern(status: "accepted" | "rejected") {
  const hunk = currentHunk.value ? hunkInfo.value.get(currentHunk.value) : undefined;
  if (!hunk?.pattern || !hunk.job_id) return tell("info", "The current hunk is not part of a pattern");
  const group = reviewJobs.value.find((j) => j.job_id === hunk.job_id)?.patterns.find((p) => p.pattern.pattern_id === hunk.pattern);
  const label = group ? patternLabel(group.pattern) : `pattern ${hunk.pattern}`;
  await decideMany({ kind: "pattern", job_id: hunk.job_id, pattern_id: hunk.pattern }, status, label);
}

/** A pattern in words: what it takes out and puts in. */
export function patternLabel(p: { removed: string; inserted: string }) {
  if (!p.removed) return `“${p.inserted}” added`;
  if (!p.inserted) return `“${p.removed}” removed`;
  return `“${p.removed}” → “${p.inserted}”`;
}

/** Puts back what another program deleted, emptied or cut down (the
 * notice's one click): its hunks rejected as one step, the files saved. */
export async function restoreOutside() {
  const alert = outsideAlert.value;
  if (!alert) return;
  outsideAlert.value = null;
  const done = await decisions.rejectAll(alert.restore);
  if (!done) return;
  let restored = 0;
  for (const path of alert.files) if (await attempt(`Restoring ${path}`, () => api.save({ path }))) restored++;
  tell("info", `Restored ${restored.toLocaleString()} of ${alert.files.length.toLocaleString()} file(s) as they were`);
  await Promise.all([refreshTree(), reloadOpen()]);
}
