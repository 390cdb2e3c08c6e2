// The editor's actions: opening files, deciding hunks (shown at once, then
// confirmed by the engine), moving between hunks across files, saving,
// resolving conflicts, and following the project feed.

import { batch } from "@preact/signals";
import { api } from "../api/client";
import { ApiFailure } from "../api/transport";
import type { FileContent, FileOp, JobUpdated, PendingHunk, Selection, Status, TreeEntry } from "../api/types";
import type { EditorController } from "../editor/controller";
import { ask } from "./confirm";
import { Ledger } from "./ledger";
import { metrics } from "./metrics";
import { attempt, currentHunk, hunkInfo, offerReview, openFile, outsideAlert, reviewItems, reviewJobs, settling, tell, tree, unsynced } from "./store";
import { reloadListings } from "./tree";

let editor: EditorController | null = null;
/** The decisions this window sends, in order (see `ledger.ts`). */
const ledger = new Ledger();

/** Resolves once an editor is bound: its code loads after the first paint,
 * and a file opened before then waits for it. */
let bound!: () => void;
let editorBound = new Promise<void>((done) => (bound = done));

/** Connects the editor view the actions drive. */
export function bindEditor(controller: EditorController | null) {
  editor = controller;
  if (controller) bound();
  else editorBound = new Promise<void>((done) => (bound = done));
}

/** The editor view, once mounted. */
export function getEditor() {
  return editor;
}

/** Refreshes started so far: only the newest takes its answer. */
let refreshes = 0;

/** Files' rows changed by an answer of the engine taken here (a decision,
 * an edit, a save): a refresh that began before one may have listed the
 * file as it was before, and must not win over it. */
let answers = 0;

/** Rows per page of the review and of the changed files: a page is what
 * the page can take in within one frame (about 0.5 MB of JSON). */
const PAGE = 2500;

/** Every row of a listing the engine serves a page at a time, from one
 * moment (its `snapshot`): each page fetched, parsed and taken in by
 * `take` in its own task, so that 20,000 rows never hold the page for
 * long. `null` when a page failed (it said why) or once `stale` says a
 * newer fetch has begun. */
async function paged<P extends { snapshot: number; total: number }>(what: string, fetch: (q: { offset: number; limit: number; snapshot: number | null }) => Promise<P>, take: (page: P) => number, stale: () => boolean, tries = 3): Promise<P | null> {
  let first: P | undefined;
  for (let offset = 0; ; ) {
    const page = await attempt(what, () => fetch({ offset, limit: PAGE, snapshot: first?.snapshot ?? null }));
    if (!page || stale()) return null;
    // A listing dropped while its pages were fetched (others were made
    // since): the later pages would come from another moment; start again.
    if (first && page.snapshot !== first.snapshot) return tries > 1 ? paged(what, fetch, take, stale, tries - 1) : null;
    first ??= page;
    offset += take(page);
    if (offset >= page.total) return first;
    await new Promise((r) => setTimeout(r, 0));
  }
}

/** The newest refresh of the tree: an older one that finds itself
 * overtaken waits for it, so that whoever awaits a refresh sees the tree
 * as the engine last listed it, not as it was before. */
let latestRefresh: Promise<void> = Promise.resolve();

/** Fetches the files with a working buffer again (their review state), and
 * the review's jobs and previews with them: a page at a time, taken in as
 * they come. Resolves once the newest refresh under way has been taken in. */
export function refreshTree(): Promise<void> {
  latestRefresh = listTree();
  return latestRefresh;
}

/** Resolves once the refresh under way (if any) has been taken in. */
export function treeListed(): Promise<void> {
  return latestRefresh;
}

async function listTree(): Promise<void> {
  const started = performance.now();
  const mine = ++refreshes;
  const answered = answers;
  const info = new Map<string, PendingHunk>();
  const entries: TreeEntry[] = [];
  const was = new Map(tree.value.map((e) => [e.path, e]));
  const stale = () => mine !== refreshes;
  const [review, files] = await Promise.all([
    paged("Listing the review", api.review, (page) => {
      for (const g of page.jobs) for (const h of g.hunks) info.set(h.hunk_id, reuse(hunkInfo.value.get(h.hunk_id), h));
      return page.jobs.reduce((n, g) => n + g.hunks.length, 0);
    }, stale),
    // Rows that did not change keep their objects, so that only their
    // rows are drawn again (a refresh follows every change in the project).
    paged("Listing files", api.changedFiles, (page) => {
      for (const e of page.files) entries.push(reuse(was.get(e.path), e));
      return page.files.length;
    }, stale),
  ]);
  // A newer refresh is under way, and its answer wins.
  if (stale()) return latestRefresh;
  // An answer taken meanwhile may be newer than these pages: list again.
  if (answers !== answered) return refreshTree();
  if (review) {
    const jobs = review.jobs.map(({ job_id, instruction, source, patterns, flagged }) => ({ job_id, instruction, source, patterns, flagged }));
    if (!sameJson(jobs, reviewJobs.value)) reviewJobs.value = jobs;
    if (info.size !== hunkInfo.value.size || [...info].some(([id, h]) => hunkInfo.value.get(id) !== h)) hunkInfo.value = info;
  }
  // The review list draws the previews, then the tree the rows: two
  // tasks, so that neither holds the page for long at 20,000 hunks. A
  // refresh started meanwhile brings newer rows, and they win.
  await new Promise((r) => setTimeout(r, 0));
  if (stale()) return latestRefresh;
  if (answers !== answered) return refreshTree();
  if (files && (entries.length !== tree.value.length || entries.some((e, i) => e !== tree.value[i]))) {
    tree.value = entries;
    metrics.treeFetched(started);
  }
}

/** Resolves once the page is idle (WebKitGTK has no requestIdleCallback: a task then). */
function idle() {
  return new Promise<void>((done) => (typeof requestIdleCallback === "function" ? requestIdleCallback(() => done(), { timeout: 100 }) : setTimeout(done, 0)));
}

/** `old` if it equals `fresh`, else `fresh`. */
function reuse<T>(old: T | undefined, fresh: T): T {
  return old !== undefined && sameJson(old, fresh) ? old : fresh;
}

/** Whether two values read from the engine's JSON are equal, field by
 * field: a refresh compares tens of thousands of rows, and building two
 * strings for each cost more than a frame at 20,000 hunks. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let count = 0;
  for (const key in x) {
    if (x[key] === undefined) continue;
    count++;
    if (!sameJson(x[key], y[key])) return false;
  }
  for (const key in y) if (y[key] !== undefined) count--;
  return count === 0;
}

/** Opens started so far, and how many are under way: the newest open
 * wins over one still fetching its file. */
let opens = 0;
let opening = 0;

/** Opens `path` in the editor, on `hunk` if given (else its first pending
 * hunk), and puts the keyboard there unless `focus` is false. An open
 * started after this one wins: this one then does nothing. */
export async function openPath(path: string, hunk?: string | null, focus = true) {
  const mine = ++opens;
  opening++;
  try {
    await editorBound;
    if (mine !== opens) return;
    if (editor?.openPath === path) {
      if (hunk) editor.goTo(hunk);
      return;
    }
    await editor?.flush().catch(() => undefined);
    const early = await ledger.takeAhead(path);
    const known = tree.value.find((e) => e.path === path)?.state;
    // Taken only while it is what the tree says the file is now: another
    // program's change or a job's proposal since then shows in its state.
    const current = early && (known ? sameJson(early.state, known) : !early.state.under_review);
    const file = current ? early : await attempt(`Opening ${path}`, () => api.file({ path }));
    if (!file || mine !== opens) return;
    openFile.value = file;
    editor?.open(file, hunk);
    if (focus) editor?.view.focus();
    fetchAhead(path);
  } finally {
    opening--;
  }
}

/** Opens the first pending hunk of job `jobId` (in the tree's order) when
 * no file is open, at the page's next idle moment: a proposal that just
 * arrived is shown, and the keyboard stays where the user is typing. */
export async function openFirstPending(jobId: string) {
  // Once the page is idle: a vault-wide review has just been drawn.
  const before = opens;
  await idle();
  // Not over a file the user has opened, or is opening.
  if (openFile.value || opening > 0 || opens !== before) return;
  const info = hunkInfo.value;
  const first = reviewItems.value.find((i) => info.get(i.hunk)?.job_id === jobId);
  if (first) await openPath(first.path, first.hunk, false);
}

/** Fetches the file after `path` that has pending hunks, so that moving
 * onto it does not wait for the network, unless it is held already. */
function fetchAhead(path: string) {
  ledger.fetchAhead(nextWithHunks(path, 1)?.path ?? null, (next) => api.file({ path: next }));
}

/** Opens `path` with the cursor on `line` (a search result). */
export async function openAt(path: string, line: number) {
  await openPath(path);
  if (editor?.openPath === path) {
    editor.goToLine(line);
    editor.view.focus();
  }
}

/** Hunk `id` as people recognise it: its file and line (in `file`, the
 * engine's answer about the file it is in, when it lists it). */
function hunkLabel(id: string, file: FileContent) {
  const span = file.hunks.find((h) => h.hunk_id === id);
  const line = span ? span.line + 1 : hunkInfo.value.get(id)?.line;
  return line === undefined ? `the change in ${file.path}` : `the change at ${file.path}:${line}`;
}

/** Takes in the engine's answer about a file: the editor if it is open, its tree row. */
export function takeAnswer(file: FileContent) {
  ledger.answeredAhead(file);
  if (openFile.value?.path === file.path) {
    openFile.value = file;
    editor?.merge(file);
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
  answers++;
}

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

/** Decides `id` (the current hunk when not given), shows the next hunk at
 * once, and lets the engine confirm. A decision that carries other hunks
 * (or text typed inside the hunk), or that asks why, is asked first. */
export async function decide(status: Status, id: string | null = currentHunk.value, withReason = false) {
  if (!editor || !id) return;
  const span = openFile.value?.hunks.find((h) => h.hunk_id === id);
  const carries =
    (status === "rejected" && ((span?.dependents.length ?? 0) > 0 || span?.typed_inside)) ||
    (status === "accepted" && (span?.depends_on.length ?? 0) > 0);
  if (status !== "pending" && (carries || withReason)) return decideAsked(status, id, withReason);
  const started = performance.now();
  const path = editor.openPath;
  if (status !== "pending") {
    const next = editor.neighbour(1, id) ?? editor.neighbour(-1, id);
    editor.markDecided(id, status, next);
    metrics.nextShown(started, next !== null);
    settle(id, path);
    if (!next) void goToNextFile(path).then((moved) => moved && metrics.nextFileShown(started));
    // Undoable at once, before the engine answers (taken back if it refuses).
    ledger.record({ id, path: path ?? "" });
  }
  ledger.decidedHere(id);
  const view = editor;
  const answered = ledger.answered().then(async () => {
    await view.flush().catch(() => undefined);
    return attempt(`Deciding ${id}`, () => api.decide(id, { status }));
  });
  const ticket = ledger.send(path ?? "", answered);
  const decided = await answered;
  // The next hunk is on screen already, or about to be: the engine's answer
  // (the same text, confirmed) is merged in once the page is idle, after
  // that frame, without asking for one more (a frame asked for between two
  // key presses makes the second wait for the display's next one).
  await idle();
  if (status === "pending" ? decided : !decided) ledger.forget(id);
  const newest = ledger.isNewest(ticket);
  if (!decided) unsettle((h) => h === id);
  if (decided) {
    if (!newest) return;
    // The tree takes every decision on the file so far: none is settling.
    batch(() => {
      unsettle((h, p) => h === id || p === decided.file.path);
      takeAnswer(decided.file);
    });
    if (status === "pending" && editor.openPath === decided.file.path) editor.goTo(id);
  } else if (path) {
    const file = await attempt(`Reloading ${path}`, () => api.file({ path }));
    if (file) takeAnswer(file);
  }
}

/** Decides `id` after saying what it will do (the engine plans it first,
 * changing nothing) and taking the user's word: the hunks it carries, the
 * typing it takes out, and a reason for a reject. Not shown ahead: it waits
 * for the engine, since it moves more than the hunk on screen. */
async function decideAsked(status: Status, id: string, withReason: boolean) {
  await ledger.answered();
  await editor?.flush().catch(() => undefined);
  const plan = await attempt(`Planning ${id}`, () => api.decide(id, { status, dry_run: true }));
  if (!plan) return;
  const carried = plan.moved.filter((m) => m.hunk_id !== id && m.from !== m.to);
  const answer = await ask({ hunkId: id, path: plan.file.path, status, carried, hidden: plan.hidden_user_text, withReason });
  if (!answer) return;
  const path = plan.file.path;
  for (const m of plan.moved) ledger.decidedHere(m.hunk_id);
  const answered = attempt(`Deciding ${id}`, () => api.decide(id, { status, reason: answer.reason }));
  const ticket = ledger.send(path, answered);
  const done = await answered;
  if (!done) return;
  ledger.record({ id, path });
  if (ledger.isNewest(ticket)) takeAnswer(done.file);
  const moved = done.moved.filter((m) => m.hunk_id !== id && m.from !== m.to).length;
  tell("info", `${status === "rejected" ? "Rejected" : "Accepted"} ${hunkLabel(id, done.file)}${moved > 0 ? ` and ${moved} hunk(s) with it` : ""}${answer.reason ? " (reason noted for the agent)" : ""}`);
  if (editor?.openPath !== path) return;
  const next = editor.neighbour(1, id) ?? editor.neighbour(-1, id);
  if (next) editor.goTo(next);
  else void goToNextFile(path);
}

/** Counts hunk `id` of `path` as settling, until the engine's answer takes
 * it out of the tree. */
function settle(id: string, path: string | null) {
  if (!ledger.settle(id, path ?? "")) return;
  void idle().then(() => {
    const next = new Set(settling.value);
    for (const h of ledger.showSettling()) next.add(h);
    settling.value = next;
  });
}

/** Lets the hunks `which` picks show as the tree says again. */
function unsettle(which: (id: string, path: string) => boolean) {
  const gone = ledger.unsettle(which);
  if (gone.length === 0) return;
  const next = new Set(settling.value);
  for (const id of gone) next.delete(id);
  if (next.size !== settling.value.size) settling.value = next;
}

/** Undoes the last decision: its hunk is pending again. */
export async function undoDecision() {
  // The decision it undoes is the last one made when the key was pressed,
  // and it goes in turn after it: a decision made while an earlier answer
  // is awaited is never the one undone, nor does the undo overtake it.
  const last = ledger.lastUndoable();
  if (!last) return tell("info", "No decision to undo");
  if ("many" in last) {
    ledger.popUndoable();
    return void (await sendMany(last.many, "pending", `Undid: ${last.label}`));
  }
  const { id, path } = last;
  ledger.forget(id);
  ledger.decidedHere(id);
  // Sent in turn like a decision, and counted as one: the answer to the
  // decision it undoes, merged when the page is idle, is older than it.
  const answered = ledger.answered().then(() => attempt("Finding the hunk", () => api.decide(id, { status: "pending" })));
  const ticket = ledger.send(path, answered);
  const owner = await answered;
  if (!owner) return;
  const with_ = owner.moved.filter((m) => m.hunk_id !== id && m.from !== m.to).map((m) => m.hunk_id);
  if (with_.length > 0) tell("info", `Undid ${hunkLabel(id, owner.file)} and ${with_.length} hunk(s) with it`);
  // The engine's answer is the file as it is now: the tree, and whatever
  // was fetched of it ahead, take it before it is opened.
  batch(() => {
    unsettle((h) => h === id);
    if (ledger.isNewest(ticket)) takeAnswer(owner.file);
  });
  if (editor?.openPath !== owner.file.path) await openPath(owner.file.path, id);
  else editor.goTo(id);
}

/** The next file in tree order with pending hunks after (or before) `path`,
 * wrapping around. */
function nextWithHunks(path: string | null, direction: 1 | -1) {
  const files = tree.value;
  const n = files.length;
  const found = files.findIndex((e) => e.path === path);
  const at = found >= 0 ? found : direction === 1 ? -1 : n;
  for (let k = 1; k <= n; k++) {
    const entry = files[(((at + direction * k) % n) + n) % n];
    if (entry.path !== path && pendingOf(entry).length > 0) return entry;
  }
  return null;
}

/** A file's pending hunks, less those decided here that it may still list. */
function pendingOf(entry: TreeEntry) {
  return entry.state.pending_hunks.filter((h) => !ledger.isSettling(h));
}

/** Opens the first (or, going back, last) pending hunk of the next file that
 * has one; whether it did. */
async function goToNextFile(path: string | null, direction: 1 | -1 = 1) {
  const entry = nextWithHunks(path, direction);
  if (!entry) return false;
  const hunks = pendingOf(entry);
  await openPath(entry.path, direction === 1 ? hunks[0] : hunks[hunks.length - 1]);
  return editor?.openPath === entry.path;
}

/** Next (1) or previous (-1) pending hunk, moving to another file at the ends. */
export async function step(direction: 1 | -1) {
  if (!editor) return;
  const started = performance.now();
  const next = editor.neighbour(direction, currentHunk.value);
  if (next) {
    editor.goTo(next);
    metrics.nextShown(started, true);
  } else await goToNextFile(editor.openPath, direction);
}

/** Decides many hunks at once as one step (`label` says which, for the
 * message and its undo): a pattern, every unflagged hunk of a job. */
export async function decideMany(selection: Selection, status: "accepted" | "rejected", label: string) {
  await ledger.answered();
  await editor?.flush().catch(() => undefined);
  // Out of the list at once, as a single decision is; back if the engine refuses.
  const ids = selected(selection);
  ledger.settleAll(ids);
  settling.value = new Set([...settling.value, ...ids.map(([id]) => id)]);
  const done = await sendMany(selection, status, `${status === "accepted" ? "Accepted" : "Rejected"}: ${label}`);
  const taken = new Set(ids.map(([id]) => id));
  unsettle((id) => taken.has(id));
  if (done && done.moved > 0) ledger.record({ many: selection, label });
}

/** The pending hunks `selection` names, with their files, as the page knows them. */
function selected(selection: Selection): [string, string][] {
  const out: [string, string][] = [];
  for (const [id, h] of hunkInfo.value) {
    const hit =
      selection.kind === "hunks"
        ? selection.hunk_ids.includes(id)
        : h.job_id === selection.job_id && (selection.kind === "pattern" ? h.pattern === selection.pattern_id : !h.flags?.length);
    if (hit) out.push([id, h.path]);
  }
  return out;
}

async function sendMany(selection: Selection, status: Status, said: string) {
  const answered = attempt("Deciding", () => api.decideMany({ selection, status }));
  ledger.sendAcross(answered);
  const done = await answered;
  if (!done) return undefined;
  tell("info", `${said} (${done.moved.toLocaleString()} hunks in ${done.files.toLocaleString()} files)`);
  await Promise.all([refreshTree(), reloadOpen()]);
  return done;
}

/** Puts back what another program deleted, emptied or cut down (the
 * notice's one click): its hunks rejected as one step, the files saved. */
export async function restoreOutside() {
  const alert = outsideAlert.value;
  if (!alert) return;
  outsideAlert.value = null;
  await ledger.answered();
  const done = await attempt("Restoring", () => api.decideMany({ selection: { kind: "hunks", hunk_ids: alert.restore }, status: "rejected" }));
  if (!done) return;
  let restored = 0;
  for (const path of alert.files) if (await attempt(`Restoring ${path}`, () => api.save({ path }))) restored++;
  tell("info", `Restored ${restored.toLocaleString()} of ${alert.files.length.toLocaleString()} file(s) as they were`);
  await Promise.all([refreshTree(), reloadOpen()]);
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

/** Accepts every pending hunk of the open file. */
export async function acceptAllInFile() {
  const path = editor?.openPath;
  if (!path) return;
  await ledger.answered();
  await editor?.flush().catch(() => undefined);
  const file = await attempt(`Accepting all in ${path}`, () => api.acceptAll({ path }));
  if (file) takeAnswer(file);
}

/** Saves the open file (its pending hunks stay out of the disk's copy). */
export async function save(path = editor?.openPath) {
  if (!path) return;
  // What was decided just before is in what is saved.
  await ledger.answered();
  if (editor?.openPath === path) {
    try {
      await editor.flush();
    } catch {
      return;
    }
  }
  const file = await attempt(`Saving ${path}`, () => api.save({ path }));
  if (file) {
    takeAnswer(file);
    tell("info", `Saved ${path}`);
  }
}

/** Saves every file with unsaved work. */
export async function saveAll() {
  await ledger.answered();
  await editor?.flush().catch(() => undefined);
  const paths = tree.value.filter((e) => e.state.dirty).map((e) => e.path);
  const open = editor?.openPath;
  if (open && unsynced.value.has(open) && !paths.includes(open)) paths.push(open);
  let saved = 0;
  for (const path of paths) {
    const file = await attempt(`Saving ${path}`, () => api.save({ path }));
    if (!file) continue;
    takeAnswer(file);
    saved += 1;
  }
  if (saved > 0) tell("info", `Saved ${saved} file(s)`);
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
  treeSoon();
  if (op.kind === "move" && editor?.openPath === path) await openPath(op.to);
}

/** Ends a conflict, keeping `keep`; the other version goes into a checkpoint. */
export async function resolve(keep: "mine" | "theirs") {
  const path = editor?.openPath;
  if (!path) return;
  const done = await attempt(`Resolving ${path}`, () => api.resolve({ path, keep }));
  if (done) {
    takeAnswer(done.file);
    tell("info", `Kept ${keep === "mine" ? "your version" : "the version on disk"}; the other is kept in the Checkpoints panel`);
  }
}

/** Reloads the open file from the engine (after a rollback, say). */
export async function reloadOpen() {
  const path = editor?.openPath;
  if (!path) return;
  const file = await attempt(`Reloading ${path}`, () => api.file({ path }));
  if (file) takeAnswer(file);
}

let treeTimer: ReturnType<typeof setTimeout> | undefined;
function treeSoon() {
  clearTimeout(treeTimer);
  treeTimer = setTimeout(() => void refreshTree(), 60);
}

let listingsTimer: ReturnType<typeof setTimeout> | undefined;
function listingsSoon() {
  clearTimeout(listingsTimer);
  listingsTimer = setTimeout(() => void reloadListings(), 60);
}

/** Follows the project feed for as long as the page lives: another
 * program's changes, review changes, rollbacks, and jobs the page did not
 * start (`onJob`). */
export async function followProject(from: number, onRollback: () => void, onJob: (update: JobUpdated) => void) {
  let cursor = from;
  for (;;) {
    try {
      const page = await api.feed({ cursor, wait_ms: 25_000 });
      if (page.first_cursor > cursor) {
        treeSoon();
        listingsSoon();
      }
      cursor = page.next_cursor;
      let reload = false;
      for (const e of page.events) {
        if (e.type !== "review.updated" || !e.data.hunk_id || !ledger.isEcho(e.data.hunk_id)) treeSoon();
        switch (e.type) {
          case "rollback.completed":
            reload = true;
            ledger.dropAhead();
            listingsSoon();
            onRollback();
            break;
          case "file.saved":
          case "file.changed":
          case "file.reloaded":
          case "file.conflict":
          case "file.resolved":
            ledger.dropAhead(e.data.path);
            // A file may have appeared or gone.
            if (e.type === "file.saved" || e.type === "file.changed") listingsSoon();
            if (e.data.path === editor?.openPath) reload = true;
            break;
          case "tree.changed":
            listingsSoon();
            break;
          case "outside.destructive":
            outsideAlert.value = e.data;
            break;
          case "mcp.connected":
            offerReview(e.data.client, e.data.outside_changes);
            break;
          case "outside.not_reviewable":
            // Record mode stays quiet for the user's own editor (pasted images).
            if (e.data.outside_changes === "review") tell("info", `Changed outside Redline, not reviewable: ${e.data.message}`);
            break;
          case "file.moved":
            // Another program moved a file: the open one follows it.
            ledger.dropAhead(e.data.from);
            listingsSoon();
            if (e.data.from === editor?.openPath) void openPath(e.data.to);
            break;
          case "review.batch":
            ledger.dropAhead();
            if (editor?.openPath) reload = true;
            break;
          case "job.updated":
            // A job that staged hunks may have staged some in the open file.
            if (e.data.status === "awaiting_review") {
              ledger.dropAhead();
              reload = true;
            }
            onJob(e.data);
            break;
          case "file.edited":
          case "review.updated":
            // What was fetched ahead of it may be older than this.
            ledger.dropAhead(e.data.path);
            break;
        }
      }
      if (reload) await reloadOpen();
    } catch {
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}
