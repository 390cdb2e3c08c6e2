// Which notes are read as a redline (rendered, changes marked in place)
// rather than as source: the choice is the user's, remembered per note in
// this browser's storage across reloads.

import { signal } from "@preact/signals";

const KEY = "redline.rendered";

/** Reads the notes chosen so far (none when storage is unavailable). */
function load(): ReadonlySet<string> {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) ?? "[]");
    return new Set(Array.isArray(saved) ? saved.filter((p) => typeof p === "string") : []);
  } catch {
    return new Set();
  }
}

/** The notes shown rendered. */
export const renderedNotes = signal<ReadonlySet<string>>(load());

/** Whether `file` is read rendered now (a text note chosen so). */
export function readsRendered(file: { path: string; binary?: boolean } | null): boolean {
  return file !== null && !file.binary && renderedNotes.value.has(file.path);
}

/** Shows `path` rendered, or as source again; remembered. */
export function toggleRendered(path: string) {
  const next = new Set(renderedNotes.value);
  if (!next.delete(path)) next.add(path);
  renderedNotes.value = next;
  try {
    // The last 500 chosen: the list stays small in a vault of thousands.
    localStorage.setItem(KEY, JSON.stringify([...next].slice(-500)));
  } catch {
    // Storage full or refused: the choice holds until the page reloads.
  }
}

/** The hunk just decided here, before the engine's answer: the redline
 * view shows it decided at once, as the source view does, and draws the
 * note again from the answer. */
export const decidedNow = signal<{ id: string; status: "accepted" | "rejected" } | null>(null);
