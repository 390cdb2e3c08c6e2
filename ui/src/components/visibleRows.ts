// A scrolled list of fixed-height rows that draws only the rows in view: the
// tree and the review list, which hold tens of thousands of rows at most.

import { useLayoutEffect, useRef, useState } from "preact/hooks";

/** Up to this many rows, all are drawn (nothing to cut). */
const DRAW_ALL_UP_TO = 100;
/** Rows drawn beyond each edge of the view, so a short scroll shows no gap. */
const SPARE = 10;

/** The window over `count` rows of `height` pixels: attach `body` to the
 * scrolled element and `onScroll` to its scroll event, draw rows
 * `first..last` inside `spacer` and `shift`. */
export function useVisibleRows(count: number, height: number) {
  const body = useRef<HTMLDivElement>(null);
  // Until its first measure: as tall as the window, so that the first
  // frame draws every row it can show.
  const [view, setView] = useState(() => ({ top: 0, height: typeof window === "undefined" ? 600 : window.innerHeight }));
  // The last measure, for `reveal`: reading the element's layout there
  // would force one in the middle of a key press.
  const measured = useRef(view);
  const show = (next: { top: number; height: number }) => {
    measured.current = next;
    setView(next);
  };
  const measure = () => {
    const el = body.current;
    if (el) show({ top: el.scrollTop, height: el.clientHeight });
  };
  useLayoutEffect(() => {
    const el = body.current;
    if (!el) return;
    // Measured first by the observer, after the frame's layout: reading
    // the height here forced a layout of the whole page in the middle of
    // the first render, once for each list (60 ms of a cold load).
    const resized = new ResizeObserver(measure);
    resized.observe(el);
    return () => resized.disconnect();
  }, []);
  const cut = count > DRAW_ALL_UP_TO;
  const first = cut ? Math.max(0, Math.floor(view.top / height) - SPARE) : 0;
  const last = cut ? Math.min(count, Math.ceil((view.top + view.height) / height) + SPARE) : count;
  return {
    body,
    first,
    last,
    onScroll: () => cut && measure(),
    spacer: cut ? { height: `${count * height}px`, position: "relative" } : undefined,
    shift: cut ? { position: "absolute", top: `${first * height}px`, left: 0, right: 0 } : undefined,
    /** Scrolls row `i` into view, `at` (a fraction of the view) from the top, unless it is in view. */
    reveal(i: number, at: number) {
      const el = body.current;
      if (!el) return;
      const { top: scrolled, height: shown } = measured.current;
      const top = i * height;
      if (top >= scrolled && top + height <= scrolled + shown) return;
      const next = Math.max(0, Math.min(top - Math.floor(shown * at), count * height - shown));
      el.scrollTop = next;
      show({ top: next, height: shown });
    },
  };
}
