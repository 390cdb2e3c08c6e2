// The keyboard shortcuts, from the one table that also handles them, and
// which Redline this is.

import { api } from "../api/client";
import { overlay } from "../state/store";
import { shortcuts } from "../shortcuts";
import { useLoaded } from "./loaded";
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
        <About />
    </Overlay>
  );
}

/** This build: its version, and the commit and day it was built from. */
function About() {
  const about = useLoaded(() => api.about().catch(() => null));
  if (!about) return null;
  const from = about.commit ? [`commit ${about.commit}`, about.built && `built ${about.built}`].filter(Boolean).join(", ") : "development build";
  return (
    <p class="about" data-testid="about">
      Redline {about.version} ({from})
    </p>
  );
}
