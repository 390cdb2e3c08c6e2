// The editor's place: the view it drives, the file open in it, moving
// between pending hunks across files (the next file fetched ahead), and
// taking in the engine's answers about a file (the editor and its tree row).

import { api } from "../api/client";
import type { FileContent } from "../api/types";
import type { EditorController } from "../editor/controller";
import { Ahead } from "./ahead";
import { idle, rowAnswered, sameJson } from "./listing";
import { metrics } from "./metrics";
import { attempt, currentHunk, hunkInfo, openFile, reviewItems, settling, tree } from "./store";

/** The editor view and the opens under way. */
class Navigator {
  editor: EditorController | null = null;
  /** Resolves once an editor is bound: its code loads after the first
   * paint, and a file opened before then waits for it. */
  bound: Promise<void>;
  private resolveBound!: () => void;
  /** Opens started so far: the newest wins over one still fetching. */
  opens = 0;
  /** Opens under way. */
  opening = 0;
  /** The path the newest open under way opens, if any. */
  target: string | null = null;
  /** The next file with pending hunks, fetched ahead. */
  readonly ahead = new Ahead();

  constructor() {
    this.bound = this.unbound();
  }

  private unbound() {
    return new Promise<void>((done) => (this.resolveBound = done));
  }

  bind(controller: EditorController | null) {
    this.editor = controller;
    if (controller) this.resolveBound();
    else this.bound = this.unbound();
  }
}

const nav = new Navigator();

/** Connects the editor view the actions drive. */
export function bindEditor(controller: EditorController | null) {
  nav.bind(controller);
}

/** The editor view, once mounted. */
export function getEditor() {
  return nav.editor;
}

/** Drops what was fetched ahead of `path` (every file's when none is
 * given): something newer happened to it. */
export function dropAhead(path?: string) {
  nav.ahead.drop(path);
}

/** Opens `path` in the editor, on `hunk` if given (else its first pending
 * hunk), and puts the keyboard there unless `focus` is false. An open
 * started after this one wins: this one then does nothing. */
export async function openPath(path: string, hunk?: string | null, focus = true) {
  const mine = ++nav.opens;
  nav.opening++;
  nav.target = path;
  try {
    await nav.bound;
    const editor = nav.editor;
    if (mine !== nav.opens) return;
    if (editor?.openPath === path) {
      if (hunk) editor.goTo(hunk);
      return;
    }
    await editor?.flush().catch(() => undefined);
    const early = await nav.ahead.take(path);
    const known = tree.value.find((e) => e.path === path)?.state;
    // Taken only while it is what the tree says the file is now: another
    // program's change or a job's proposal since then shows in its state.
    const current = early && (known ? sameJson(early.state, known) : !early.state.under_review);
    const file = current ? early : await attempt(`Opening ${path}`, () => api.file({ path }));
    if (!file || mine !== nav.opens) return;
    openFile.value = file;
    nav.editor?.open(file, hunk);
    if (focus) nav.editor?.view.focus();
    nav.ahead.fetch(nextWithHunks(path, 1, shownSettling)?.path ?? null, (next) => api.file({ path: next }));
  } finally {
    nav.opening--;
    if (mine === nav.opens) nav.target = null;
  }
}

/** The note the user means now: the one being opened, while it loads (a
 * key pressed right after a click on a row is for that row's note), else
 * the one open. */
export function meantPath(): string | null {
  return nav.target ?? openFile.value?.path ?? null;
}

/** Opens the first pending hunk of job `jobId` (in the tree's order) when
 * no file is open, at the page's next idle moment: a proposal that just
 * arrived is shown, and the keyboard stays where the user is typing. */
export async function openFirstPending(jobId: string) {
  // Once the page is idle: a vault-wide review has just been drawn.
  const before = nav.opens;
  await idle();
  // Not over a file the user has opened, or is opening.
  if (openFile.value || nav.opening > 0 || nav.opens !== before) return;
  const info = hunkInfo.value;
  const first = reviewItems.value.find((i) => info.get(i.hunk)?.job_id === jobId);
  if (first) await openPath(first.path, first.hunk, false);
}

/** Opens `path` with the cursor on `line` (a search result). */
export async function openAt(path: string, line: number) {
  await openPath(path);
  const editor = nav.editor;
  if (editor?.openPath === path) {
    editor.goToLine(line);
    editor.view.focus();
  }
}

/** Takes in the engine's answer about a file: the editor if it is open, its tree row. */
export function takeAnswer(file: FileContent) {
  nav.ahead.answered(file);
  if (openFile.value?.path === file.path) {
    openFile.value = file;
    nav.editor?.merge(file);
  }
  // A file with a move under review is shown at one of its two paths:
  // the row at the other one is gone.
  const op = file.state.op;
  const other = op ? [op.from, op.op.kind === "move" ? op.op.to : null].find((p) => p && p !== file.path) : null;
  const rows = other ? tree.value.filter((r) => r.path !== other) : tree.value;
  const i = rows.findIndex((r) => r.path === file.path);
  if (rows === tree.value && (i >= 0 ? sameJson(rows[i].state, file.state) : !file.state.under_review)) return;
  const next = rows.slice();
  if (i < 0) {
    const at = rows.findIndex((r) => r.path > file.path);
    next.splice(at < 0 ? rows.length : at, 0, { path: file.path, size: new TextEncoder().encode(file.text).length, state: file.state });
  } else if (file.state.under_review) next[i] = { ...rows[i], state: file.state };
  else next.splice(i, 1);
  tree.value = next;
  rowAnswered();
}

/** Reloads the open file from the engine (after a rollback, say). */
export async function reloadOpen() {
  const path = nav.editor?.openPath;
  if (!path) return;
  const file = await attempt(`Reloading ${path}`, () => api.file({ path }));
  if (file) takeAnswer(file);
}

/** The next file in tree order with pending hunks after (or before) `path`,
 * wrapping around, less the hunks `skip` names. */
function nextWithHunks(path: string | null, direction: 1 | -1, skip: (id: string) => boolean) {
  const files = tree.value;
  const n = files.length;
  const found = files.findIndex((e) => e.path === path);
  const at = found >= 0 ? found : direction === 1 ? -1 : n;
  for (let k = 1; k <= n; k++) {
    const entry = files[(((at + direction * k) % n) + n) % n];
    if (entry.path !== path && entry.state.pending_hunks.some((h) => !skip(h))) return entry;
  }
  return null;
}

/** Whether hunk `id` is shown decided though its file's row still lists it. */
const shownSettling = (id: string) => settling.value.has(id);

/** Opens the first (or, going back, last) pending hunk of the next file that
 * has one, skipping the hunks `skip` names (those shown settling when not
 * given); whether it did. */
export async function goToNextFile(path: string | null, direction: 1 | -1 = 1, skip: (id: string) => boolean = shownSettling) {
  const entry = nextWithHunks(path, direction, skip);
  if (!entry) return false;
  const hunks = entry.state.pending_hunks.filter((h) => !skip(h));
  await openPath(entry.path, direction === 1 ? hunks[0] : hunks[hunks.length - 1]);
  return nav.editor?.openPath === entry.path;
}

/** Next (1) or previous (-1) pending hunk, moving to another file at the ends. */
export async function step(direction: 1 | -1) {
  const editor = nav.editor;
  if (!editor) return;
  const started = performance.now();
  const next = editor.neighbour(direction, currentHunk.value);
  if (next) {
    editor.goTo(next);
    metrics.nextShown(started, true);
  } else await goToNextFile(editor.openPath, direction);
}
