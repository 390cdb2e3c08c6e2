// Find and replace across the vault (Ctrl+Shift+H): the engine's
// `replace_text`, or a tag or a front matter property renamed everywhere
// (`rename_tag`, `rename_property`), previewed as it is typed (how many,
// where, a line before and after, what it leaves alone and why), then
// staged as a job of its own to review like any proposal. Nothing is
// written before a save.

import { useRef, useState } from "preact/hooks";
import { api } from "../api/client";
import { useAsked } from "./asked";
import type { OperationsPreview, Part, VaultOp } from "../api/types";
import { refreshTree } from "../state/listing";
import { openFirstPending } from "../state/navigation";
import { attempt, overlay, tell } from "../state/store";
import { Overlay } from "./Overlay";
import { leftAlone, PARTS } from "../words";

/** The parts a replacement may be let into, as the panel names them. */

/** What the panel changes: text, a tag, or a property's key. */
type Kind = "text" | "tag" | "property";

const KINDS: [Kind, string, string, string][] = [
  ["text", "Text", "Find", "Replace with"],
  ["tag", "Tag", "Tag (#project/atlas)", "New name"],
  ["property", "Property", "Property (status)", "New name"],
];

export function ReplacePanel() {
  const first = useRef<HTMLInputElement>(null);
  const [kind, setKind] = useState<Kind>("text");
  const [find, setFind] = useState("");
  const [replace, setReplace] = useState("");
  const [regex, setRegex] = useState(false);
  const [wholeWord, setWholeWord] = useState(false);
  const [caseSensitive, setCaseSensitive] = useState(true);
  const [folder, setFolder] = useState("");
  const [include, setInclude] = useState<Part[]>([]);
  const [staging, setStaging] = useState(false);
  const op = (): VaultOp => {
    const scope = { folders: folder.trim() ? [folder.trim()] : [], glob: null, containing: null, property: null, files: [] };
    switch (kind) {
      case "tag":
        return { op: "rename_tag", from: find.trim(), to: replace.trim(), scope };
      case "property":
        return { op: "rename_property", from: find.trim(), to: replace.trim(), scope };
      default:
        return { op: "replace_text", find, replace, regex, whole_word: wholeWord, case_sensitive: caseSensitive, scope, include };
    }
  };
  // A rename needs both names; a replacement may replace with nothing.
  const ready = kind === "text" ? find !== "" : find.trim() !== "" && replace.trim() !== "";
  const { answer: preview, error } = useAsked<OperationsPreview>(ready ? () => api.previewOperations({ operations: [op()] }) : null, [kind, find, replace, regex, wholeWord, caseSensitive, folder, include], 200);
  const [, , findLabel, withLabel] = KINDS.find(([k]) => k === kind)!;
  const report = preview?.reports[0];
  const stage = async () => {
    if (!report || report.occurrences === 0 || staging) return;
    setStaging(true);
    const job = await attempt(kind === "text" ? "Staging the replacement" : `Staging the ${kind} rename`, () => api.operations({ operations: [op()] }));
    setStaging(false);
    if (!job) return;
    overlay.value = "none";
    tell("info", `${job.instruction}: ${changes(preview!.edits, report)} to review; nothing is written until you save`);
    await refreshTree();
    void openFirstPending(job.job_id);
  };
  const left = report ? leftAlone(report.left_alone) : "";
  return (
    <Overlay class="search replace" label="Find and replace across the vault" testid="replace-panel" close={() => (overlay.value = "none")}>
        <div class="row" role="tablist" aria-label="What to change">
          {KINDS.map(([k, name]) => (
            <button
              key={k}
              role="tab"
              aria-selected={kind === k}
              class={kind === k ? "tab selected" : "tab"}
              data-testid={`replace-kind-${k}`}
              onClick={() => {
                setKind(k);
                first.current?.focus();
              }}
            >
              {name}
            </button>
          ))}
        </div>
        <div class="row">
          <input ref={first} data-autofocus data-testid="replace-find" aria-label={findLabel} placeholder={findLabel} value={find} onInput={(e) => setFind(e.currentTarget.value)} />
          {kind === "text" && (
            <>
              <label title="Regular expression (Rust syntax; $1 in the replacement inserts a group)">
                <input type="checkbox" data-testid="replace-regex" checked={regex} onChange={(e) => setRegex(e.currentTarget.checked)} /> .*
              </label>
              <label title="Whole words only">
                <input type="checkbox" data-testid="replace-word" checked={wholeWord} onChange={(e) => setWholeWord(e.currentTarget.checked)} /> \b
              </label>
              <label title="Match case">
                <input type="checkbox" data-testid="replace-case" checked={caseSensitive} onChange={(e) => setCaseSensitive(e.currentTarget.checked)} /> Aa
              </label>
            </>
          )}
        </div>
        <div class="row">
          <input
            data-testid="replace-with"
            aria-label={withLabel}
            placeholder={withLabel}
            value={replace}
            onInput={(e) => setReplace(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) void stage();
            }}
          />
          <input class="glob" data-testid="replace-folder" aria-label="Only in the folder" placeholder="every folder" value={folder} onInput={(e) => setFolder(e.currentTarget.value)} />
        </div>
        {kind === "tag" && <div class="row muted">Inline (nested tags too) and in the tags property; never in code or links.</div>}
        {kind === "property" && <div class="row muted">The key only: its value and every other line of the front matter stay as they are.</div>}
        {kind === "text" && (
          <div class="row muted">
            Prose only; also in:
            {PARTS.map(([part, name]) => (
              <label key={part}>
                <input
                  type="checkbox"
                  data-testid={`replace-include-${part}`}
                  checked={include.includes(part)}
                  onChange={(e) => setInclude(e.currentTarget.checked ? [...include, part] : include.filter((p) => p !== part))}
                />{" "}
                {name}
              </label>
            ))}
          </div>
        )}
        {error && <p class="error-text" data-testid="replace-error">{error}</p>}
        {report && (
          <p class="muted" data-testid="replace-summary">
            {changes(preview!.edits, report)}
            {left && `; ${left}`}
            {report.skipped.length > 0 && `; ${report.skipped.length} note(s) skipped`}
          </p>
        )}
        {preview && preview.links_follow.length > 0 && (
          <div data-testid="replace-links-follow">
            <p class="muted">
              Outside the scope, {preview.links_follow.length.toLocaleString()} note(s) change too: their links follow a heading this renames
              (reviewed with it).
            </p>
            <ul>
              {preview.links_follow.slice(0, 10).map((f) => (
                <li key={f.file_path}>
                  {f.file_path} <span class="muted">({f.links.toLocaleString()} link(s))</span>
                </li>
              ))}
              {preview.links_follow.length > 10 && <li class="muted">and {(preview.links_follow.length - 10).toLocaleString()} more</li>}
            </ul>
          </div>
        )}
        <div class="search-results">
          {report?.samples.map((s) => (
            <section key={`${s.file_path}:${s.line}`} data-testid="replace-sample">
              <h4>
                {s.file_path} <span class="muted">line {s.line}</span>
              </h4>
              <div class="hit">
                <del>{s.before}</del>
              </div>
              <div class="hit">
                <ins>{s.after}</ins>
              </div>
            </section>
          ))}
          {report?.skipped.map((s) => (
            <p key={`${s.file_path}:${s.reason}`} class="muted" data-testid="replace-skipped">
              {s.file_path}: {s.reason}
            </p>
          ))}
        </div>
        <div class="decision-buttons">
          <button onClick={() => (overlay.value = "none")}>
            Cancel <kbd>Esc</kbd>
          </button>
          <button class="primary" data-testid="replace-stage" disabled={!report || report.occurrences === 0 || staging} onClick={() => void stage()}>
            Stage for review <kbd>Ctrl+Enter</kbd>
          </button>
        </div>
    </Overlay>
  );
}

/** What a replacement changes, counted as the review counts it: one change
 * a line (a hunk), with the occurrences it replaces when a line holds more
 * than one — "1,329 change(s) in 135 note(s) (1,587 occurrences)". */
function changes(edits: number, report: { occurrences: number; notes_changed: number }): string {
  const lines = `${edits.toLocaleString()} change(s) in ${report.notes_changed.toLocaleString()} note(s)`;
  return report.occurrences > edits ? `${lines} (${report.occurrences.toLocaleString()} occurrences)` : lines;
}
