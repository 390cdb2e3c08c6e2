// Every keyboard shortcut, once: the editor's keymap, the page's key handler
// and the help overlay all read this table. Shortcuts that act on the editor
// are CodeMirror key bindings inside it (so they take their place among the
// editor's own keys) and page-wide keys elsewhere.

import type { KeyBinding } from "@codemirror/view";

import { meantPath, step } from "./state/navigation";
import { decide, decideCurrentPattern, redoDecision, undoDecision } from "./state/review";
import { acceptAllInFile, save, saveAll } from "./state/saving";
import { openFile, overlay, renaming } from "./state/store";
import { addSelection } from "./state/context";
import { toggleRendered } from "./state/redline";
import { overlayOpen } from "./components/Overlay";

export interface Shortcut {
  /** As shown in the help overlay. */
  keys: string;
  /** What it does. */
  label: string;
  /** Whether a key event is this shortcut. */
  matches(e: KeyboardEvent): boolean;
  /** Its CodeMirror key, when it acts on the editor. */
  cm?: string;
  /** Whether it opens or closes a panel, and so works with one open: every
   * other shortcut acts on what is behind the panels and waits. */
  panel?: true;
  run(): void;
}

/** Opens the panel `name`, or closes it when it is the one open. */
const toggle = (name: typeof overlay.value) => () => (overlay.value = overlay.value === name ? "none" : name);

/** Turns the note the user means rendered or back to source: the one a
 * row click is opening, while it loads, else the one open (not a binary
 * file, which has no rendering). */
function toggleMeant() {
  const path = meantPath();
  if (path && !(openFile.value?.path === path && openFile.value.binary)) toggleRendered(path);
}

const mod = (e: KeyboardEvent) => e.ctrlKey || e.metaKey;
const alt = (code: string) => (e: KeyboardEvent) => e.altKey && !mod(e) && !e.shiftKey && e.code === code;
const altShift = (code: string) => (e: KeyboardEvent) => e.altKey && !mod(e) && e.shiftKey && e.code === code;

export const shortcuts: Shortcut[] = [
  { keys: "Ctrl+S", label: "Save the open file", matches: (e) => mod(e) && !e.altKey && e.code === "KeyS", cm: "Mod-s", run: () => void save() },
  { keys: "Ctrl+Alt+S", label: "Save every file with unsaved work", matches: (e) => mod(e) && e.altKey && e.code === "KeyS", run: () => void saveAll() },
  { keys: "Alt+Y", label: "Accept the current hunk and show the next", matches: alt("KeyY"), cm: "Alt-y", run: () => void decide("accepted") },
  { keys: "Alt+N", label: "Reject the current hunk and show the next", matches: alt("KeyN"), cm: "Alt-n", run: () => void decide("rejected") },
  {
    keys: "Alt+Shift+N",
    label: "Reject the current hunk, saying why (the agent's next job is told)",
    matches: (e) => e.altKey && !mod(e) && e.shiftKey && e.code === "KeyN",
    cm: "Alt-Shift-n",
    run: () => void decide("rejected", undefined, true),
  },
  {
    keys: "Alt+Shift+Y",
    label: "Accept every hunk of the current hunk's pattern (the same change across the job), as one step",
    matches: (e) => e.altKey && !mod(e) && e.shiftKey && e.code === "KeyY",
    cm: "Alt-Shift-y",
    run: () => void decideCurrentPattern("accepted"),
  },
  {
    keys: "Alt+Shift+X",
    label: "Reject every hunk of the current hunk's pattern, as one step",
    matches: (e) => e.altKey && !mod(e) && e.shiftKey && e.code === "KeyX",
    cm: "Alt-Shift-x",
    run: () => void decideCurrentPattern("rejected"),
  },
  { keys: "Alt+U", label: "Undo the last decision, pattern, apply or rollback: exactly what it moved (after a reload too)", matches: alt("KeyU"), cm: "Alt-u", run: () => void undoDecision() },
  { keys: "Alt+Shift+U", label: "Redo the step undone last", matches: altShift("KeyU"), cm: "Alt-Shift-u", run: () => void redoDecision() },
  { keys: "Alt+J", label: "Next hunk (on to the next file at the end)", matches: alt("KeyJ"), cm: "Alt-j", run: () => void step(1) },
  { keys: "Alt+K", label: "Previous hunk", matches: alt("KeyK"), cm: "Alt-k", run: () => void step(-1) },
  { keys: "Alt+A", label: "Accept all hunks in the open file", matches: alt("KeyA"), cm: "Alt-a", run: () => void acceptAllInFile() },
  { keys: "Alt+R", label: "Read the open note rendered, as a redline, or as source again", matches: alt("KeyR"), cm: "Alt-r", run: toggleMeant },
  { keys: "Alt+Shift+R", label: "Read the run as one document, rendered, its changes marked", matches: altShift("KeyR"), panel: true, run: toggle("document") },
  { keys: "Alt+L", label: "Add the selection to the agent's context", matches: alt("KeyL"), cm: "Alt-l", run: () => addSelection() },
  { keys: "Ctrl+Enter", label: "Run the instruction (in the instruction box)", matches: () => false, run: () => undefined },
  { keys: "Ctrl+P", label: "Quick open: find a file by name", matches: (e) => mod(e) && !e.altKey && !e.shiftKey && e.code === "KeyP", cm: "Mod-p", panel: true, run: toggle("quickopen") },
  { keys: "Ctrl+Shift+F", label: "Search the project", matches: (e) => mod(e) && !e.altKey && e.shiftKey && e.code === "KeyF", cm: "Mod-Shift-f", panel: true, run: toggle("search") },
  { keys: "Ctrl+Shift+H", label: "Find and replace across the vault (staged for review)", matches: (e) => mod(e) && !e.altKey && e.shiftKey && e.code === "KeyH", cm: "Mod-Shift-h", panel: true, run: toggle("replace") },
  { keys: "Alt+P", label: "Checkpoints", matches: alt("KeyP"), panel: true, run: toggle("checkpoints") },
  { keys: "Alt+,", label: "Settings", matches: alt("Comma"), panel: true, run: toggle("settings") },
  {
    keys: "F2",
    label: "Rename or move the open file (proposed for review; its links follow)",
    matches: (e) => e.key === "F2" && !mod(e) && !e.altKey,
    cm: "F2",
    run: () => {
      const file = openFile.value;
      if (file && file.state.op?.status !== "pending") renaming.value = file.path;
    },
  },
  { keys: "F1", label: "This list", matches: (e) => e.key === "F1", panel: true, run: toggle("help") },
  // Answered by the open panel itself (components/Overlay.tsx); listed here for the help.
  { keys: "Esc", label: "Close the open panel or dialog (the keyboard goes back where it was)", matches: () => false, run: () => undefined },
];

/** The shortcuts that act on the editor, as key bindings for it. */
export function editorBindings(): KeyBinding[] {
  return shortcuts.filter((s) => s.cm).map((s) => ({ key: s.cm, preventDefault: true, run: () => (s.run(), true) }));
}

/** Listens for the shortcuts anywhere in the page; inside the editor, its
 * keymap answers those that act on it. */
export function listen() {
  window.addEventListener(
    "keydown",
    (e) => {
      const hit = shortcuts.find((s) => s.matches(e));
      if (!hit || (overlayOpen() && !hit.panel)) return;
      const inEditor = e.target instanceof Element && e.target.closest(".cm-editor") !== null;
      if (hit.cm && inEditor) return;
      e.preventDefault();
      e.stopPropagation();
      hit.run();
    },
    { capture: true },
  );
}
