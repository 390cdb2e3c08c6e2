// Says what a decision will do before it is made, when it moves more than
// its hunk (the later changes that build on a rejected hunk, the earlier
// ones an accepted hunk stands on) or takes out text the user typed inside
// it; and takes a reason for a reject, which the next job is told.

import { useRef } from "preact/hooks";
import { clip, clipChange } from "../clip";
import { question } from "../state/confirm";
import { hunkInfo } from "../state/store";
import { Overlay } from "./Overlay";

function verb(status: string) {
  return status === "rejected" ? "reject" : status === "accepted" ? "accept" : "undo";
}

/** A hunk as the user knows it: its line and its change, with the text
 * around it (the brackets of a link it renames), cut around the change. */
function label(id: string) {
  const info = hunkInfo.value.get(id);
  if (!info) return id;
  const p = info.preview;
  if (!p.removed && !p.added) return `${info.path} line ${info.line}`;
  const [was, now] = clipChange(`${p.before}${p.removed}${p.after}`, `${p.before}${p.added}${p.after}`, 48);
  return `${info.path} line ${info.line}: “${was}” → “${now}”`;
}

export function DecisionDialog() {
  const q = question.value;
  const reason = useRef<HTMLInputElement>(null);
  if (!q) return null;
  const done = () => q.answer({ reason: reason.current?.value.trim() || undefined });
  const n = q.carried.length;
  return (
    // Enter answers it anywhere but on Cancel: it is the one thing on screen
    // that waits for an answer.
    <Overlay class="decision" label="Confirm the decision" testid="decision-dialog" close={() => q.answer(null)} enter={done}>
        <header>
          <h2>
            {verb(q.status)[0].toUpperCase() + verb(q.status).slice(1)} {label(q.hunkId)}
          </h2>
        </header>
        <div class="decision-body">
          {n > 0 && (
            <div data-testid="decision-carried">
              <p>
                {q.status === "rejected"
                  ? `This also rejects ${n} later change${n === 1 ? "" : "s"} that build${n === 1 ? "s" : ""} on it:`
                  : `This also accepts ${n} earlier change${n === 1 ? "" : "s"} it builds on:`}
              </p>
              <ul>
                {q.carried.map((m) => (
                  <li key={m.hunk_id} data-testid="decision-moved" data-hunk-id={m.hunk_id}>
                    {label(m.hunk_id)}
                  </li>
                ))}
              </ul>
            </div>
          )}
          {q.hidden.length > 0 && (
            <p data-testid="decision-hidden">
              It also takes out what you typed inside it: {q.hidden.map((t) => `“${clip(t, 60)}”`).join(", ")}. A checkpoint keeps it, and
              undo (Alt+U) brings it back.
            </p>
          )}
          {q.linksLeft.length > 0 && (
            <div data-testid="decision-links-left">
              <p>Rejecting it leaves {q.linksLeft.length === 1 ? "a link" : `${q.linksLeft.length} links`} naming a note's old path:</p>
              <ul>
                {q.linksLeft.map((l) => (
                  <li key={`${l.hunk_id}${l.from}`}>
                    {l.path} still links to {l.from}, which moves to {l.to}
                  </li>
                ))}
              </ul>
            </div>
          )}
          {q.status === "rejected" && (
            <label class="decision-reason">
              Why? (optional; the agent's next job is told)
              <input ref={reason} data-autofocus data-testid="decision-reason" maxLength={500} placeholder="e.g. keep the old name in meeting notes" />
            </label>
          )}
          <div class="decision-buttons">
            <button onClick={() => q.answer(null)} data-testid="decision-cancel">
              Cancel <kbd>Esc</kbd>
            </button>
            <button class="primary" data-autofocus={q.status !== "rejected" || undefined} onClick={done} data-testid="decision-confirm">
              {verb(q.status)[0].toUpperCase() + verb(q.status).slice(1)}
              {n > 0 ? ` all ${n + 1}` : ""} <kbd>Enter</kbd>
            </button>
          </div>
        </div>
    </Overlay>
  );
}
