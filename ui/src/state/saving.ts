// What reaches the engine besides decisions: the user's typing, saves,
// accepting a whole file, resolving a conflict, and moves and deletions
// proposed from the tree. Each waits for the decisions sent before it, so
// what is saved carries them.

import { api } from "../api/client";
import { ApiFailure } from "../api/transport";
import type { FileContent, FileOp } from "../api/types";
import { refreshTreeSoon } from "./listing";
import { getEditor, openPath, reloadOpen, takeAnswer } from "./navigation";
import { decisions } from "./review";
import { attempt, tell, tree, unsynced } from "./store";

/** The editor's link to the engine for the user's typing. */
export async function sendEdit(path: string, text: string, baseHash: string): Promise<FileContent> {
  try {
    const file = await api.edit({ path, text, base_hash: baseHash });
    takeAnswer(file);
    return file;
  } catch (e) {
    if (e instanceof ApiFailure && e.code === "conflict" && /changed since it was read/.test(e.message)) {
      // A run or a decision changed the file first: its text is fetched,
      // and the typing goes again on top of it.
      void reloadOpen();
    } else {
      tell("error", `Your edit to ${path} was not taken: ${e instanceof Error ? e.message : e}`);
    }
    throw e;
  }
}

/** Notes typing not yet sent for `path`. */
export function markUnsynced(path: string, yes: boolean) {
  const next = new Set(unsynced.value);
  if (yes) next.add(path);
  else next.delete(path);
  unsynced.value = next;
}

/** Accepts every pending hunk of the open file. */
export async function acceptAllInFile() {
  const editor = getEditor();
  const path = editor?.openPath;
  if (!path) return;
  await decisions.answered();
  await editor?.flush().catch(() => undefined);
  const file = await attempt(`Accepting all in ${path}`, () => api.acceptAll({ path }));
  if (file) takeAnswer(file);
}

/** Saves the open file (its pending hunks stay out of the disk's copy). */
export async function save(path = getEditor()?.openPath) {
  if (!path) return;
  // What was decided just before is in what is saved.
  await decisions.answered();
  const editor = getEditor();
  if (editor?.openPath === path) {
    try {
      await editor.flush();
    } catch {
      return;
    }
  }
  // Nothing to save here while other files wait (the last hunk of one was
  // just decided, and the window moved on): said, never a silent "Saved".
  const others = tree.value.filter((e) => e.state.dirty && e.path !== path).map((e) => e.path);
  const idle = !tree.value.some((e) => e.path === path && e.state.dirty) && !unsynced.value.has(path);
  const file = await attempt(`Saving ${path}`, () => api.save({ path }));
  if (file) {
    takeAnswer(file);
    if (idle && others.length > 0) {
      const named = others.length === 1 ? others[0] : `${others.length} other files`;
      tell("info", `Nothing to save in ${path}; ${named} ${others.length === 1 ? "has" : "have"} unsaved work: Ctrl+Alt+S saves every file`);
    } else tell("info", `Saved ${path}`);
  }
}

/** Saves every file with unsaved work: one request, one batch written by
 * the engine (hash-checked, journaled), which finishes even if the window
 * closes the moment after. The open file's typing goes first. */
export async function saveAll() {
  await decisions.answered();
  await getEditor()?.flush().catch(() => undefined);
  const done = await attempt("Saving every file", () => api.saveAll());
  if (!done) return;
  refreshTreeSoon();
  void reloadOpen();
  const saved = done.saved.length;
  const left = done.not_saved.length;
  if (left > 0) {
    const first = done.not_saved[0];
    tell("error", `Saved ${saved} file(s); ${left} not saved, changed by another program: ${first.path} (${first.message})`);
  } else tell("info", saved > 0 ? `Saved ${saved} file(s)` : "Nothing to save");
}

/** Proposes moving (renaming) the file at `path`, or deleting it: a job of
 * its own, reviewed like any proposal (the links a move breaks are
 * rewritten as hunks that follow it); nothing moves before it is accepted. */
export async function proposeFileOp(path: string, op: FileOp) {
  const what = op.kind === "move" ? `Moving ${path} to ${op.to}` : `Deleting ${path}`;
  const job = await attempt(what, () => api.fileOp({ path, op }));
  if (!job) return;
  const links = job.diff_bundle?.files.reduce((n, f) => n + f.hunks.length, 0) ?? 0;
  tell("info", `${what}: proposed for review${links > 0 ? `, with ${links} link update(s)` : ""}`);
  refreshTreeSoon();
  // The open note follows its move; the keyboard goes with it unless the
  // user is typing somewhere else by now (the proposal took a moment).
  if (op.kind === "move" && getEditor()?.openPath === path) await openPath(op.to, undefined, !typingElsewhere());
}

/** Whether the keyboard is in a field outside the editor (the instruction
 * box, a panel's input): a note opened now must not take it. */
function typingElsewhere() {
  const at = document.activeElement;
  if (!(at instanceof HTMLElement) || at.closest(".cm-editor")) return false;
  return at.matches("input, textarea, select, [contenteditable=true]");
}

/** Ends a conflict, keeping `keep`; the other version goes into a checkpoint. */
export async function resolve(keep: "mine" | "theirs") {
  const path = getEditor()?.openPath;
  if (!path) return;
  const done = await attempt(`Resolving ${path}`, () => api.resolve({ path, keep }));
  if (done) {
    takeAnswer(done.file);
    tell("info", `Kept ${keep === "mine" ? "your version" : "the version on disk"}; the other is kept in the Checkpoints panel`);
  }
}
