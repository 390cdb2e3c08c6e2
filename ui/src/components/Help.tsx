// The keyboard shortcuts, from the one table that also handles them.

import { overlay } from "../state/store";
import { shortcuts } from "../shortcuts";

export function Help() {
  return (
    <div class="overlay" onClick={(e) => e.target === e.currentTarget && (overlay.value = "none")}>
      <div class="panel help" role="dialog" aria-label="Keyboard shortcuts" data-testid="help">
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
      </div>
    </div>
  );
}
