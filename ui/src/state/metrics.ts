// Timings the browser tests read and print (`window.__redlineMetrics`):
// how long a review takes to show, and how long from a decision to the next
// hunk on screen. Measured to the next painted frame.

export interface Metrics {
  /** Tree answers taken in, with when each arrived and when the frame after it was painted. */
  treeRenders: { fetchedMs: number; paintedMs: number }[];
  /** Decision or step → next hunk drawn (synchronously, and at the next frame). */
  nextHunk: { drawnMs: number; paintedMs: number }[];
  /** Decision on a file's last hunk → the next file's first hunk drawn (and painted). */
  nextFile: { drawnMs: number; paintedMs: number }[];
}

const data: Metrics = { treeRenders: [], nextHunk: [], nextFile: [] };
(globalThis as unknown as { __redlineMetrics: Metrics }).__redlineMetrics = data;

/** Paint of the frame after now. */
function afterPaint(done: (ms: number) => void) {
  requestAnimationFrame(() => setTimeout(() => done(performance.now()), 0));
}

export const metrics = {
  treeFetched(started: number) {
    const fetched = performance.now();
    afterPaint((now) => data.treeRenders.push({ fetchedMs: fetched - started, paintedMs: now - started }));
  },
  nextShown(started: number, shown: boolean) {
    if (!shown) return;
    const drawn = performance.now() - started;
    afterPaint((now) => data.nextHunk.push({ drawnMs: drawn, paintedMs: now - started }));
  },
  nextFileShown(started: number) {
    const drawn = performance.now() - started;
    afterPaint((now) => data.nextFile.push({ drawnMs: drawn, paintedMs: now - started }));
  },
};
