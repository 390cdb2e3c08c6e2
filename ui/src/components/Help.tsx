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
          </tbody>
        </table>
      </div>
    </div>
  );
}
