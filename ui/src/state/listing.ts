// The review as the engine lists it: the files with a working buffer (the
// tree's rows, with their review state) and the review's jobs and hunks,
// fetched a page at a time from one moment and taken in as they come. A
// cold load paints its first rows from the first pages.

import { api } from "../api/client";
import type { PendingHunk, ReviewQueue, TreeEntry } from "../api/types";
import { metrics } from "./metrics";
import { attempt, hunkInfo, reviewJobs, tree } from "./store";

/** Rows per page of the review and of the changed files: a page is what
 * the page can take in within one frame (about 0.5 MB of JSON). */
const PAGE = 2500;

/** Rows of the first page on a cold load: a screenful, so that the first
 * rows are on screen while the rest is fetched (200 took 40 ms longer to
 * list and draw at 5,000 hunks). */
const FIRST_PAGE = 60;

/** Every row of a listing the engine serves a page at a time, from one
 * moment (its `snapshot`): each page fetched, parsed and taken in by
 * `take` in its own task, so that 20,000 rows never hold the page for
 * long. `null` when a page failed (it said why) or once `stale` says a
 * newer fetch has begun. `first` is the first page's size. */
async function paged<P extends { snapshot: number; total: number }>(
  what: string,
  fetch: (q: { offset: number; limit: number; snapshot: number | null }) => Promise<P>,
  take: (page: P) => number,
  stale: () => boolean,
  first = PAGE,
  tries = 3,
): Promise<P | null> {
  let head: P | undefined;
  for (let offset = 0; ; ) {
    const page = await attempt(what, () => fetch({ offset, limit: head ? PAGE : first, snapshot: head?.snapshot ?? null }));
    if (!page || stale()) return null;
    // A listing dropped while its pages were fetched (others were made
    // since): the later pages would come from another moment; start again.
    if (head && page.snapshot !== head.snapshot) return tries > 1 ? paged(what, fetch, take, stale, first, tries - 1) : null;
    const firstPage = !head;
    head ??= page;
    offset += take(page);
    if (offset >= page.total) return head;
    // After a short first page, the rows it brought are painted before the
    // next page is taken in (parsing 2,500 rows held the first paint back
    // by 190 ms); a hidden page, which paints nothing, waits 50 ms at most.
    await (firstPage && first < PAGE ? painted() : new Promise((r) => setTimeout(r, 0)));
  }
}

/** Resolves once the next frame is painted, or after 50 ms. */
function painted(): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 50);
    requestAnimationFrame(() =>
      setTimeout(() => {
        clearTimeout(timer);
        resolve();
      }, 0),
    );
  });
}

/** A promise kept once, and its keeping. */
function once() {
  let done = () => {};
  const promise = new Promise<void>((resolve) => (done = resolve));
  return { promise, done: () => done() };
}

/** Kept once the review's first rows are listed (or its first listing
 * ended without them), for what a cold load asks after them. */
const firstRows = once();

/** The feed's cursor when the first listings were taken (the lower of the
 * two), or `undefined` when one of them failed: where the project feed is
 * followed from, so that nothing after them is missed. */
let keepCursor: (cursor: number | undefined) => void = () => {};
const firstCursor = new Promise<number | undefined>((resolve) => (keepCursor = resolve));

/** Resolves with the feed's cursor at the first listings (see above). */
export function listedCursor(): Promise<number | undefined> {
  return firstCursor;
}

/** Resolves once the review's first rows are in (shown, or not to come):
 * what the window needs later waits for it, so that a cold load's first
 * requests do not share the engine with it. */
export function reviewListed(): Promise<void> {
  return firstRows.promise;
}

/** The listings under way and the answers taken meanwhile. */
class Listing {
  /** Refreshes started so far: only the newest takes its answer. */
  private started = 0;
  /** Files' rows changed by an answer of the engine taken here (a
   * decision, an edit, a save): a refresh that began before one may have
   * listed the file as it was before, and must not win over it. */
  private answers = 0;
  /** The newest refresh: an older one that finds itself overtaken waits
   * for it, so that whoever awaits a refresh sees the tree as the engine
   * last listed it, not as it was before. */
  latest: Promise<void> = Promise.resolve();

  /** The refresh asked for soon, if any. */
  private timer: ReturnType<typeof setTimeout> | undefined;

  /** Refreshes in a moment: what asks for a refresh in the meantime shares it. */
  soon() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.refresh(), 60);
  }

  /** Notes that a file's row changed from an engine's answer. */
  answered() {
    this.answers++;
  }

  /** Lists both again; resolves once the newest listing is taken in. */
  refresh(): Promise<void> {
    this.latest = this.list();
    return this.latest;
  }

  /** `again` counts the listings before this one whose two answers came
   * from different moments (see `agree`). */
  private async list(again = 0): Promise<void> {
    const started = performance.now();
    const mine = ++this.started;
    const answered = this.answers;
    const stale = () => mine !== this.started;
    const overtaken = () => stale() || this.answers !== answered;
    // A cold load (nothing listed yet) shows the first page of each as it comes.
    const cold = tree.value.length === 0 && hunkInfo.value.size === 0;
    const info = new Map<string, PendingHunk>();
    const entries: TreeEntry[] = [];
    const was = new Map(tree.value.map((e) => [e.path, e]));
    let head: ReviewQueue | undefined;
    let filesCursor: number | undefined;
    // Each listing's first page is shown as it comes, without waiting for
    // the other's: on a cold load nothing else is shown yet.
    const early = (shown: "review" | "files") => {
      if (!cold || overtaken()) return;
      if (shown === "review" && head) {
        performance.mark("rows");
        reviewJobs.value = jobsOf(head);
        hunkInfo.value = new Map(info);
        firstRows.done();
      }
      if (shown === "files" && entries.length > 0) {
        tree.value = entries.slice();
        metrics.treeFetched(started);
      }
    };
    // Both first pages in: the feed can be followed from their moment.
    const cursorKnown = () => {
      if (head && filesCursor !== undefined) keepCursor(Math.min(head.feed_cursor, filesCursor));
    };
    const [review, files] = await Promise.all([
      paged(
        "Listing the review",
        api.review,
        (page) => {
          for (const g of page.jobs) for (const h of g.hunks) info.set(h.hunk_id, reuse(hunkInfo.value.get(h.hunk_id), h));
          if (!head) {
            head = page;
            early("review");
            cursorKnown();
          }
          return page.jobs.reduce((n, g) => n + g.hunks.length, 0);
        },
        stale,
        cold ? FIRST_PAGE : PAGE,
      ),
      // Rows that did not change keep their objects, so that only their
      // rows are drawn again (a refresh follows every change in the project).
      paged(
        "Listing files",
        api.changedFiles,
        (page) => {
          const first = filesCursor === undefined;
          for (const e of page.files) entries.push(reuse(was.get(e.path), e));
          if (first) {
            filesCursor = page.feed_cursor;
            if (entries.length > 0) early("files");
            cursorKnown();
          }
          return page.files.length;
        },
        stale,
        cold ? FIRST_PAGE : PAGE,
      ),
    ]);
    firstRows.done();
    // A listing that failed leaves no cursor: the feed is asked for its own.
    keepCursor(undefined);
    // A newer refresh is under way, and its answer wins.
    if (stale()) return this.latest;
    // An answer taken meanwhile may be newer than these pages: list again.
    if (this.answers !== answered) return this.refresh();
    // The two listings are fetched side by side, and the engine may have
    // moved between them (a job's hunks listed among the files but not yet
    // in the review would be drawn under no heading): list both again.
    if (review && files && again < 2 && !agree(info, entries)) return (this.latest = this.list(again + 1));
    if (review) {
      const jobs = jobsOf(review);
      if (!sameJson(jobs, reviewJobs.value)) reviewJobs.value = jobs;
      if (info.size !== hunkInfo.value.size || [...info].some(([id, h]) => hunkInfo.value.get(id) !== h)) hunkInfo.value = info;
    }
    // The review list draws the previews, then the tree the rows: two
    // tasks, so that neither holds the page for long at 20,000 hunks. A
    // refresh started meanwhile brings newer rows, and they win.
    await new Promise((r) => setTimeout(r, 0));
    if (stale()) return this.latest;
    if (this.answers !== answered) return this.refresh();
    if (files && (entries.length !== tree.value.length || entries.some((e, i) => e !== tree.value[i]))) {
      tree.value = entries;
      metrics.treeFetched(started);
    }
  }
}

/** Whether the review's hunks and the files' pending hunks are the same
 * set, as they are when both are listed from one moment. */
function agree(info: ReadonlyMap<string, PendingHunk>, entries: readonly TreeEntry[]): boolean {
  let listed = 0;
  for (const e of entries) {
    for (const hunk of e.state.pending_hunks) if (!info.has(hunk)) return false;
    listed += e.state.pending_hunks.length;
  }
  return listed === info.size;
}

/** The review's jobs, as a page of the listing has them (every page lists every job). */
function jobsOf(page: ReviewQueue) {
  return page.jobs.map(({ job_id, instruction, source, patterns, flagged }) => ({ job_id, instruction, source, patterns, flagged }));
}

const listing = new Listing();

/** Fetches the files with a working buffer again (their review state), and
 * the review's jobs and previews with them: a page at a time, taken in as
 * they come. Resolves once the newest refresh under way has been taken in. */
export function refreshTree(): Promise<void> {
  return listing.refresh();
}

/** Refreshes the tree in a moment, once for a burst of reasons (the feed's
 * words, a proposal made from the tree). */
export function refreshTreeSoon() {
  listing.soon();
}

/** Resolves once the refresh under way (if any) has been taken in. */
export function treeListed(): Promise<void> {
  return listing.latest;
}

/** Notes that a file's row was changed from an answer of the engine: a
 * refresh begun before it lists again. */
export function rowAnswered() {
  listing.answered();
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

/** Resolves once the page is idle (WebKitGTK has no requestIdleCallback: a task then). */
export function idle() {
  return new Promise<void>((done) => (typeof requestIdleCallback === "function" ? requestIdleCallback(() => done(), { timeout: 100 }) : setTimeout(done, 0)));
}
