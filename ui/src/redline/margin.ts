// Where the bar of a change stands: beside the change, in the rendered
// note's margin, never over its text.

/** Where a change's bar goes within the scrolling `frame`: in the right
 * margin of the rendered note holding `mark` (`.redline-note` keeps it
 * free), level with the mark's first line. */
export function inMargin(mark: Element, frame: HTMLElement): { top: number; left: number } {
  const box = mark.getBoundingClientRect();
  const at = frame.getBoundingClientRect();
  const note = (mark.closest(".redline-note") ?? frame).getBoundingClientRect();
  const gutter = parseFloat(getComputedStyle(frame).getPropertyValue("--rl-gutter")) || 112;
  return {
    top: box.top - at.top + frame.scrollTop,
    left: Math.max(0, note.right - at.left - gutter - 8 + frame.scrollLeft),
  };
}

/** How long the pointer rests on another change before the bar goes to
 * it: the way from a change to its bar in the margin crosses the rest of
 * its line, which may hold other changes. */
export const SETTLE_MS = 150;

/** A mouseover handler that calls `settle` with the change under the
 * pointer and its mark: at once when `now()` says no change has the bar
 * yet, else once the pointer has rested on it for [`SETTLE_MS`]. */
export function hoverIntent(now: () => string | null, settle: (id: string, mark: HTMLElement) => void): (e: MouseEvent) => void {
  let timer: number | undefined;
  return (e) => {
    window.clearTimeout(timer);
    const mark = (e.target as Element).closest<HTMLElement>("[data-hunk]");
    const id = mark?.dataset.hunk;
    if (!mark || !id) return;
    const current = now();
    if (current === id) return;
    if (current === null) settle(id, mark);
    else timer = window.setTimeout(() => settle(id, mark), SETTLE_MS);
  };
}
