// The handle between the files pane and the editor: dragged (or moved with
// the arrow keys while focused) it widens the pane, so long note names show
// whole. The width is kept for the next session.

import { signal } from "@preact/signals";

const KEY = "redline.leftWidth";
const MIN = 180;
const MAX = 640;

/** The files pane's width in pixels (260 until the user changes it). */
export const leftWidth = signal(clamp(Number(localStorage.getItem(KEY)) || 260));

function clamp(px: number) {
  return Math.round(Math.min(MAX, Math.max(MIN, px)));
}

function set(px: number) {
  leftWidth.value = clamp(px);
  localStorage.setItem(KEY, String(leftWidth.value));
}

export function PaneResizer() {
  return (
    <div
      class="pane-resizer"
      role="separator"
      aria-orientation="vertical"
      aria-label="Width of the files pane"
      aria-valuemin={MIN}
      aria-valuemax={MAX}
      aria-valuenow={leftWidth.value}
      tabIndex={0}
      data-testid="pane-resizer"
      onPointerDown={(e) => {
        const handle = e.currentTarget as HTMLElement;
        handle.setPointerCapture(e.pointerId);
        const from = e.clientX - leftWidth.value;
        const move = (m: PointerEvent) => set(m.clientX - from);
        const up = () => {
          handle.removeEventListener("pointermove", move);
          handle.removeEventListener("pointerup", up);
        };
        handle.addEventListener("pointermove", move);
        handle.addEventListener("pointerup", up);
        e.preventDefault();
      }}
      onKeyDown={(e) => {
        if (e.key === "ArrowLeft") set(leftWidth.value - 16);
        else if (e.key === "ArrowRight") set(leftWidth.value + 16);
        else return;
        e.preventDefault();
      }}
    />
  );
}
