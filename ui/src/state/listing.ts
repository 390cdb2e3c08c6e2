// The review as the engine lists it: the files with a working buffer (the
// tree's rows, with their review state), the review's jobs and hunks and
// the sessions, fetched a page at a time from one moment and taken in as
// they come. A cold load paints its first rows from the first pages.

import { api } from "../api/client";
import type { ChangedFiles, PendingHunk, ReviewQueue, TreeEntry } from "../api/types";
import { metrics } from "./metrics";
import { checkDrawn } from "./check";
import { attempt, hunkInfo, reviewJobs, sessions, settling, tree } from "./store";

/** Rows per page of the review and of the changed files: a page is what
 * the page can take in within one frame (about 0.5 MB of JSON). */
const PAGE = 2500;

/** Rows of the first page on a cold load: a screenful, so that the first
 * rows are on screen while the rest is fetched (200 took 40 ms longer to
 * list and draw at 5,000 hunks). */
const FIRST_PAGE = 60;

/** Every row of a listing the engine serves a page at a time, from the
 * moment numbered `snapshot` (the first page's, when not given): each page
 * fetched, parsed and taken in by `take` in its own task, so that 20,000
 * rows never hold the page for long. `null` when a page failed (it said
 * why) or once `stale` says a newer fetch has begun; `"dropped"` when the
 * engine no longer keeps that moment (others were listed since) and the
 * listing must begin again. `first` is the first page's size. */
async function paged<P extends { snapshot: number; total: number }>(
  what: string,
  fetch: (q: { offset: number; limit: number; snapshot: number | null }) => Promise<P>,
  take: (page: P) => number,
  stale: () => boolean,
  first: number,
  snapshot: number | null,
): Promise<P | null | "dropped"> {
  let head: P | undefined;
  for (let offset = 0; ; ) {
    const page = await attempt(what, () => fetch({ offset, limit: head ? PAGE : first, snapshot }));
    if (!page || stale()) return null;
    if (snapshot !== null && page.snapshot !== snapshot) return "dropped";
    snapshot = page.snapshot;
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

/** A promise kept once (later keepings do nothing), and its keeping. */
function once<T = void>() {
  let keep: (value: T) => void = () => {};
  const promise = new Promise<T>((resolve) => (keep = resolve));
  return { promise, done: (value: T) => keep(value) };
}

/** Kept once the review's first rows are listed (or its first listing
 * ended without them), for what a cold load asks after them. */
const firstRows = once();

/** The feed's cursor at the first listing, or `undefined` when it failed:
 * where the project feed is followed from, so that nothing after it is
 * missed. */
const firstCursor = once<number | undefined>();

/** Resolves with the feed's cursor at the first listing (see above). */
export function listedCursor(): Promise<number | undefined> {
  return firstCursor.promise;
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

  /** Lists them again; resolves once the newest listing is taken in. */
  refresh(): Promise<void> {
    this.latest = this.list();
    return this.latest;
  }

  /** Lists the review, the files and the sessions from one moment of the
   * engine: the review's first page names it (and lists the sessions),
   * and every later page of both is cut from it, so they always agree. `tries` counts the listings begun
   * again because the engine dropped their moment meanwhile. */
  private async list(tries = 0): Promise<void> {
    const started = performance.now();
    const mine = ++this.started;
    const answered = this.answers;
    const stale = () => mine !== this.started;
    const overtaken = () => stale() || this.answers !== answered;
    // A cold load (nothing listed yet) shows the first page of each as it comes.
    const cold = tree.value.length === 0 && hunkInfo.value.size === 0;
    const size = cold ? FIRST_PAGE : PAGE;
    const info = new Map<string, PendingHunk>();
    const entries: TreeEntry[] = [];
    const was = new Map(tree.value.map((e) => [e.path, e]));
    // The review's first page names the moment, and on a cold load its rows
    // are shown at once; the files are listed from that moment.
    const moment = once<number | null>();
    const takeReview = (page: ReviewQueue) => {
      for (const g of page.jobs) for (const h of g.hunks) info.set(h.hunk_id, reuse(hunkInfo.value.get(h.hunk_id), h));
      if (page.offset === 0) {
        moment.done(page.snapshot);
        firstCursor.done(page.feed_cursor);
        if (cold && !overtaken()) {
          performance.mark("rows");
          if (page.sessions) sessions.value = page.sessions;
          reviewJobs.value = jobsOf(page);
          hunkInfo.value = new Map(info);
          firstRows.done();
        }
      }
      return page.jobs.reduce((n, g) => n + g.hunks.length, 0);
    };
    // Rows that did not change keep their objects, so that only their rows
    // are drawn again (a refresh follows every change in the project).
    const takeFiles = (page: ChangedFiles) => {
      const firstFiles = entries.length === 0;
      for (const e of page.files) entries.push(reuse(was.get(e.path), e));
      if (firstFiles && cold && entries.length > 0 && !overtaken()) {
        tree.value = entries.slice();
        metrics.treeFetched(started);
      }
      return page.files.length;
    };
    const [review, files] = await Promise.all([
      paged("Listing the review", api.review, takeReview, stale, size, null).finally(() => moment.done(null)),
      moment.promise.then((at) => (at === null ? null : paged("Listing files", api.changedFiles, takeFiles, stale, size, at))),
    ]);
    firstRows.done();
    firstCursor.done(undefined);
    // A newer refresh is under way, and its answer wins.
    if (stale()) return this.latest;
    // The engine listed others meanwhile and dropped this moment: begin again.
    if ((review === "dropped" || files === "dropped") && tries < 2) return (this.latest = this.list(tries + 1));
    // An answer taken meanwhile may be newer than these pages: list again.
    if (this.answers !== answered) return this.refresh();
    if (review && review !== "dropped") {
      if (review.sessions && !sameJson(review.sessions, sessions.value)) sessions.value = review.sessions;
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
    if (files && files !== "dropped" && (entries.length !== tree.value.length || entries.some((e, i) => e !== tree.value[i]))) {
      tree.value = entries;
      metrics.treeFetched(started);
    }
    if (review && review !== "dropped" && files && files !== "dropped") {
      const pending = new Map(entries.map((e) => [e.path, e.state.pending_hunks.length]));
      checkDrawn({ total: review.total, files: pending }, () => !overtaken() && settling.value.size === 0);
    }
  }
}

/** The review's jobs, as a page of the listing has them (every page lists every job). */
function jobsOf(page: ReviewQueue) {
  return page.jobs.map(({ job_id, instruction, source, patterns, flagged }) => ({ job_id, instruction, source, patterns, flagged }));
}

const listing = new Listing();

/** Fetches the files with a working buffer again (their review state), and
 * the review's jobs and previews and the sessions with them: a page at a
 * time, taken in as they come. Resolves once the newest refresh under way has been taken in. */
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
