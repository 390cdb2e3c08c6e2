// Every keyboard shortcut, once: the key handler and the help overlay both read this table.

import { acceptAllInFile, decide, save, saveAll, step, undoDecision } from "./state/files";
import { overlay } from "./state/store";
import { addSelection } from "./state/context";

export interface Shortcut {
  /** As shown in the help overlay. */
  keys: string;
  /** What it does. */
  label: string;
  /** Whether a key event is this shortcut. */
  matches(e: KeyboardEvent): boolean;
  run(): void;
}

const mod = (e: KeyboardEvent) => e.ctrlKey || e.metaKey;
const alt = (code: string) => (e: KeyboardEvent) => e.altKey && !mod(e) && !e.shiftKey && e.code === code;

export const shortcuts: Shortcut[] = [
  { keys: "Ctrl+S", label: "Save the open file", matches: (e) => mod(e) && !e.altKey && e.code === "KeyS", run: () => void save() },
  { keys: "Ctrl+Alt+S", label: "Save every file with unsaved work", matches: (e) => mod(e) && e.altKey && e.code === "KeyS", run: () => void saveAll() },
  { keys: "Alt+Y", label: "Accept the current hunk and show the next", matches: alt("KeyY"), run: () => void decide("accepted") },
  { keys: "Alt+N", label: "Reject the current hunk and show the next", matches: alt("KeyN"), run: () => void decide("rejected") },
  { keys: "Alt+U", label: "Undo the last accept or reject", matches: alt("KeyU"), run: () => void undoDecision() },
  { keys: "Alt+J", label: "Next hunk (on to the next file at the end)", matches: alt("KeyJ"), run: () => void step(1) },
  { keys: "Alt+K", label: "Previous hunk", matches: alt("KeyK"), run: () => void step(-1) },
  { keys: "Alt+A", label: "Accept all hunks in the open file", matches: alt("KeyA"), run: () => void acceptAllInFile() },
  { keys: "Alt+L", label: "Add the selection to the agent's context", matches: alt("KeyL"), run: () => addSelection() },
  { keys: "Ctrl+Enter", label: "Run the instruction (in the instruction box)", matches: () => false, run: () => undefined },
  { keys: "Alt+P", label: "Checkpoints", matches: alt("KeyP"), run: () => (overlay.value = overlay.value === "checkpoints" ? "none" : "checkpoints") },
  { keys: "Alt+,", label: "Settings", matches: alt("Comma"), run: () => (overlay.value = overlay.value === "settings" ? "none" : "settings") },
  { keys: "F1", label: "This list", matches: (e) => e.key === "F1", run: () => (overlay.value = overlay.value === "help" ? "none" : "help") },
  { keys: "Esc", label: "Close the open panel", matches: (e) => e.key === "Escape" && overlay.value !== "none", run: () => (overlay.value = "none") },
];

/** Listens for the shortcuts anywhere in the page (the editor included). */
export function listen() {
  window.addEventListener(
    "keydown",
    (e) => {
      const hit = shortcuts.find((s) => s.matches(e));
      if (!hit) return;
      e.preventDefault();
      e.stopPropagation();
      hit.run();
    },
    { capture: true },
  );
}
