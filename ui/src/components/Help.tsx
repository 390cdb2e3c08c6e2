// The keyboard shortcuts, from the one table that also handles them.

import { overlay } from "../state/store";
import { shortcuts } from "../shortcuts";
import { Overlay } from "./Overlay";

export function Help() {
  return (
    <Overlay class="help" label="Keyboard shortcuts" testid="help" close={() => (overlay.value = "none")}>
        <header>
          <h2>Keyboard shortcuts</h2>
          <button onClick={() => (overlay.value = "none")}>Close</button>
        </header>
        <table>
          <tbody>
            {shortcuts.map((s) => (
              <tr key={s.keys}>
                <td>
                  <kbd>{s.keys}</kbd>
                </td>
                <td>{s.label}</td>
              </tr>
            ))}
            {/* The editor's own keys (CodeMirror's), so the keyboard is never trapped in a note. */}
            <tr>
              <td>
                <kbd>Tab</kbd>
              </td>
              <td>In a note: indent the line</td>
            </tr>
            <tr data-testid="help-leave-editor">
              <td>
                <kbd>Esc</kbd> then <kbd>Tab</kbd>
              </td>
              <td>Leave the note: the keyboard moves on to the next control</td>
            </tr>
            <tr>
              <td>
                <kbd>Ctrl+M</kbd>
              </td>
              <td>In a note: Tab moves the keyboard on instead of indenting, until pressed again</td>
            </tr>
          </tbody>
        </table>
    </Overlay>
  );
}
