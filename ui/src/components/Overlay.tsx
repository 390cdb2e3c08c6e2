// Every panel and dialog over the window, and the one place the keyboard is
// decided while any is open: the top one takes the focus as it opens, keeps
// Tab inside it, closes on Escape and gives the focus back where it was.
// Nothing typed while one is open reaches a note behind it.

import type { ComponentChildren } from "preact";
import { useLayoutEffect, useRef } from "preact/hooks";

interface Open {
  panel: HTMLElement;
  close(): void;
  enter?: () => void;
}

/** The open overlays, the top one last. */
const stack: Open[] = [];

const FOCUSABLE = "input:not([disabled]), select:not([disabled]), textarea:not([disabled]), button:not([disabled]), a[href], [tabindex]:not([tabindex='-1'])";

function focusables(panel: HTMLElement): HTMLElement[] {
  return [...panel.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((e) => e.offsetParent !== null || e === document.activeElement);
}

/** Whether the key is one the top overlay answers itself rather than a
 * control inside it: Enter on anything but a button, a list or a text area. */
function entersOn(target: EventTarget | null) {
  return !(target instanceof HTMLElement && target.closest("button, select, textarea, a[href], summary"));
}

function onKey(e: KeyboardEvent) {
  const top = stack.at(-1);
  if (!top) return;
  const inside = e.target instanceof Node && top.panel.contains(e.target);
  // Escape during an input method's composition is the composition's.
  if (e.key === "Escape" && !e.isComposing) {
    e.preventDefault();
    e.stopImmediatePropagation();
    top.close();
    return;
  }
  if (!inside) {
    // The focus is behind the overlay (the page took it back): the key is
    // the overlay's, never the note's.
    e.preventDefault();
    e.stopImmediatePropagation();
    top.panel.focus();
    return;
  }
  if (e.key === "Tab") {
    const all = focusables(top.panel);
    if (all.length === 0) {
      e.preventDefault();
      return;
    }
    const at = all.indexOf(document.activeElement as HTMLElement);
    const next = e.shiftKey ? (at <= 0 ? all.length - 1 : at - 1) : at === -1 || at === all.length - 1 ? 0 : at + 1;
    e.preventDefault();
    all[next].focus();
    return;
  }
  if (e.key === "Enter" && !e.isComposing && top.enter && entersOn(e.target)) {
    e.preventDefault();
    e.stopImmediatePropagation();
    top.enter();
  }
}

/** Text that comes with no key (an input method, an emoji picker, a
 * dictation) goes where the selection is, which may still be in a note
 * behind the overlay: it is the overlay's too. */
function onInput(e: InputEvent) {
  const top = stack.at(-1);
  if (top && !(e.target instanceof Node && top.panel.contains(e.target))) {
    e.preventDefault();
    e.stopImmediatePropagation();
  }
}

/** Keeps the focus inside the top overlay when something behind it (an
 * editor opening a note, a list re-rendering) takes it. */
function onFocus(e: FocusEvent) {
  const top = stack.at(-1);
  if (top && e.target instanceof Node && !top.panel.contains(e.target)) top.panel.focus();
}

/** Whether any overlay is open. */
export function overlayOpen() {
  return stack.length > 0;
}

/** A panel or dialog over the window, as `role` (default `dialog`) named
 * `label`. It takes the focus as it opens (the element marked
 * `data-autofocus`, else the panel itself), closes with `close` on Escape
 * or a click beside it, and with `enter` on Enter anywhere in it except on
 * a button, a list or a text area (default: Enter does nothing of its own). */
export function Overlay(props: {
  label: string;
  testid: string;
  class: string;
  role?: "dialog" | "alertdialog";
  close(): void;
  enter?: () => void;
  children: ComponentChildren;
}) {
  const panel = useRef<HTMLDivElement>(null);
  const open = useRef<Open | null>(null);
  // The latest handlers, without re-opening the overlay on every render.
  if (open.current) {
    open.current.close = props.close;
    open.current.enter = props.enter;
  }
  useLayoutEffect(() => {
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const entry: Open = { panel: panel.current!, close: props.close, enter: props.enter };
    open.current = entry;
    stack.push(entry);
    if (stack.length === 1) {
      window.addEventListener("keydown", onKey, true);
      window.addEventListener("beforeinput", onInput, true);
      document.addEventListener("focusin", onFocus, true);
    }
    // The note's caret goes with its focus: its editor puts it back when
    // it has the focus again.
    if (!entry.panel.contains(document.getSelection()?.anchorNode ?? null)) document.getSelection()?.removeAllRanges();
    (entry.panel.querySelector<HTMLElement>("[data-autofocus]") ?? entry.panel).focus();
    return () => {
      stack.splice(stack.indexOf(entry), 1);
      if (stack.length === 0) {
        window.removeEventListener("keydown", onKey, true);
        window.removeEventListener("beforeinput", onInput, true);
        document.removeEventListener("focusin", onFocus, true);
      }
      const top = stack.at(-1);
      if (before?.isConnected && (!top || top.panel.contains(before))) before.focus();
      else top?.panel.focus();
    };
  }, []);
  return (
    <div class="overlay" onClick={(e) => e.target === e.currentTarget && props.close()}>
      <div ref={panel} class={`panel ${props.class}`} role={props.role ?? "dialog"} aria-modal="true" aria-label={props.label} data-testid={props.testid} tabIndex={-1}>
        {props.children}
      </div>
    </div>
  );
}
