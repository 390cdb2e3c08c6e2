// Checkpoints: every run with its instruction, time and files; the three-way
// compare of a file (before the run, as proposed, as it is now); rollback of
// the whole run or of chosen hunks, and undoing a rollback.

import { signal } from "@preact/signals";
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api/client";
import type { Checkpoint, CheckpointFile, PlannedHunk, RollbackPlan, ThreeWay } from "../api/types";
import { clip } from "../clip";
import { hunkWords } from "../words";
import { checkpoints, lastRollback, loadOlder, olderCheckpoints, reloadCheckpoints, rollBackTo, rollbacks, undoRollback } from "../state/checkpoints";
import { attempt, overlay } from "../state/store";
import { Overlay } from "./Overlay";

/** The checkpoint shown: its id, or the newest when none was picked. */
const selected = signal<string | null>(null);

/** Where a run's hunk sat in the proposed text, from its reverse patch
 * (`@@ -line,…`), when the file recorded one per hunk. */
function hunkLine(f: CheckpointFile, i: number): number | null {
  if (f.reverse_patches.length !== f.hunk_ids.length) return null;
  const at = /^@@ -(\d+)/m.exec(f.reverse_patches[i] ?? "");
  return at ? Number(at[1]) : null;
}

/** What a person recognises a checkpoint by: its request, shortened, and
 * its kind when it has none. */
function title(cp: Checkpoint) {
  return clip(cp.instruction || `${cp.kind} checkpoint`, 60);
}

function when(rfc3339: string) {
  const d = new Date(rfc3339);
  return Number.isNaN(d.getTime()) ? rfc3339 : d.toLocaleString();
}

export function Checkpoints() {
  useEffect(() => {
    void reloadCheckpoints();
  }, []);
  const cp = checkpoints.value.find((c) => c.checkpoint_id === selected.value) ?? checkpoints.value[0] ?? null;
  const undo = lastRollback.value;
  return (
    <Overlay class="checkpoints" label="Checkpoints" testid="checkpoints" close={() => (overlay.value = "none")}>
        <header>
          <h2>Checkpoints</h2>
          {undo && (
            <button
              data-testid="undo-rollback"
              onClick={() => void undoRollback()}
            >
              Undo the rollback
            </button>
          )}
          <span class="spacer" />
          <button onClick={() => (overlay.value = "none")}>Close</button>
        </header>
        <div class="cp-body">
          <ul class="cp-list">
            {checkpoints.value.length === 0 && <li class="empty">No checkpoints yet: each run takes one before its hunks are staged.</li>}
            {checkpoints.value.map((c) => (
              <li key={c.checkpoint_id}>
                <button
                  class={`cp-item${c.checkpoint_id === cp?.checkpoint_id ? " active" : ""}`}
                  data-testid="checkpoint"
                  data-checkpoint-id={c.checkpoint_id}
                  onClick={() => (selected.value = c.checkpoint_id)}
                >
                  <span class="cp-title">{c.instruction || c.kind}</span>
                  <span class="muted">
                    {c.kind} · {when(c.created_at)} · {c.affected_files.length} file(s)
                  </span>
                </button>
              </li>
            ))}
            {olderCheckpoints.value && (
              <li>
                <button class="link" data-testid="older-checkpoints" onClick={() => void loadOlder()}>
                  Older checkpoints…
                </button>
              </li>
            )}
          </ul>
          {cp && <Detail key={cp.checkpoint_id} cp={cp} />}
        </div>
    </Overlay>
  );
}

/** A hunk a rollback takes out, as a person finds it: its note and line. */
function where(h: PlannedHunk) {
  return h.line === null ? h.file_path : `${h.file_path} line ${h.line}`;
}

/** Whether a planned scoped rollback does more than revert the hunks
 * chosen, so that it is shown before anything happens. */
function beyond(plan: RollbackPlan, chosen: Set<string>) {
  return plan.refused !== null || plan.carried.length > 0 || plan.restored.length > 0 || plan.dropped.some((h) => !chosen.has(h.hunk_id));
}

/** How many paths a list shows before it says how many more. */
const SHOWN = 200;

/** Paths as a list that scrolls, however many there are. */
function Paths({ paths, testid }: { paths: string[]; testid: string }) {
  return (
    <ul class="path-list" data-testid={testid}>
      {paths.slice(0, SHOWN).map((p) => (
        <li key={p}>{p}</li>
      ))}
      {paths.length > SHOWN && <li class="muted">and {(paths.length - SHOWN).toLocaleString()} more</li>}
    </ul>
  );
}

/** The confirmation of a rollback: everything it will change, as the
 * engine planned it by trying it and taking it back, before anything
 * happens; or why it cannot be done. Enter anywhere in it but on Cancel
 * rolls back; Esc leaves it, and nothing happens. */
function RollbackConfirm({ cp, plan, scoped, answer }: { cp: Checkpoint; plan: RollbackPlan; scoped: boolean; answer(go: boolean): void }) {
  if (plan.refused !== null) {
    return (
      <Overlay role="alertdialog" class="decision rollback-confirm" label="The rollback cannot be done" testid="rollback-confirm" close={() => answer(false)}>
        <div class="decision-body">
          <p data-testid="rollback-refused">This rollback cannot be done: {plan.refused}.</p>
          <div class="decision-buttons">
            <button data-autofocus data-testid="rollback-cancel" onClick={() => answer(false)}>
              Close <kbd>Esc</kbd>
            </button>
          </div>
        </div>
      </Overlay>
    );
  }
  const later = plan.dropped.filter((h) => h.job_id !== cp.job_id);
  const own = plan.dropped.length - later.length;
  const n = plan.files.length;
  return (
    <Overlay role="alertdialog" class="decision rollback-confirm" label="Confirm the rollback" testid="rollback-confirm" close={() => answer(false)} enter={() => answer(true)}>
      <header>
        <h2>{scoped ? `Revert the chosen changes of “${title(cp)}”` : `Roll back “${title(cp)}”`}</h2>
      </header>
      <div class="decision-body">
        <p>
          {scoped
            ? `In ${n.toLocaleString()} file${n === 1 ? "" : "s"}:`
            : `Put ${n.toLocaleString()} file${n === 1 ? "" : "s"} back as they were before it:`}
        </p>
        <Paths paths={plan.files} testid="rollback-files" />
        <ul>
          {own > 0 && <li data-testid="rollback-plan-own">The run's {own} change(s) that still count go.</li>}
          {later.length > 0 && (
            <li data-testid="rollback-plan-later">
              {later.length} later change(s) to {scoped ? "that text" : "those files"} go too: {later.slice(0, SHOWN).map(where).join(", ")}.
            </li>
          )}
          {plan.carried.length > 0 && (
            <li data-testid="rollback-plan-carried">
              With them, {plan.carried.length} change(s) in other notes that depend on them (a moved note's links): {plan.carried.slice(0, SHOWN).map(where).join(", ")}.
            </li>
          )}
          {plan.restored.length > 0 && (
            <li data-testid="rollback-plan-restored">
              {plan.restored.length} change(s) come back to review: {plan.restored.slice(0, SHOWN).map(where).join(", ")}.
            </li>
          )}
          {plan.typed.length > 0 && <li data-testid="rollback-plan-typed">What you typed since in {plan.typed.join(", ")} goes too.</li>}
        </ul>
        <p class="muted">Nothing is written until you save, and the checkpoints panel can undo it.</p>
        <div class="decision-buttons">
          <button data-testid="rollback-cancel" onClick={() => answer(false)}>
            Cancel <kbd>Esc</kbd>
          </button>
          <button class="danger" data-autofocus data-testid="rollback-go" onClick={() => answer(true)}>
            Roll back <kbd>Enter</kbd>
          </button>
        </div>
      </div>
    </Overlay>
  );
}

function Detail({ cp }: { cp: Checkpoint }) {
  const [file, setFile] = useState(cp.affected_files[0]?.file_path ?? null);
  const [planned, setPlanned] = useState<{ plan: RollbackPlan; scoped: string[] | null } | null>(null);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  /** Rolls back the hunks `scoped`, or (null) the whole run. */
  const rollBack = (scoped: string[] | null) => rollBackTo(cp.checkpoint_id, scoped);
  const toggle = (id: string) => {
    const next = new Set(chosen);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setChosen(next);
  };
  return (
    <div class="cp-detail">
      <div class="row">
        <strong title={cp.checkpoint_id} data-testid="checkpoint-title">
          {title(cp)}
        </strong>
        <span class="muted">{when(cp.created_at)}</span>
        <span class="spacer" />
        <button
          data-testid="rollback-selected"
          disabled={chosen.size === 0}
          onClick={async () => {
            const hunk_ids = [...chosen];
            const plan = await attempt("Planning the rollback", () => api.rollbackPlan(cp.checkpoint_id, { mode: "scoped_selected", hunk_ids }));
            if (!plan) return;
            // Asked only when it would do more than revert what was chosen.
            if (beyond(plan, chosen)) return setPlanned({ plan, scoped: hunk_ids });
            await rollBack(hunk_ids);
          }}
        >
          Roll back {chosen.size || ""} selected
        </button>
        <button
          class="danger"
          data-testid="rollback-all"
          onClick={async () => {
            // What it would do, from the engine, listed before anything happens.
            const plan = await attempt("Planning the rollback", () => api.rollbackPlan(cp.checkpoint_id, { mode: "hard_all" }));
            if (plan) setPlanned({ plan, scoped: null });
          }}
        >
          Roll back all
        </button>
      </div>
      {planned && (
        <RollbackConfirm
          cp={cp}
          plan={planned.plan}
          scoped={planned.scoped !== null}
          answer={async (go) => {
            setPlanned(null);
            if (go) await rollBack(planned.scoped);
          }}
        />
      )}
      <div class="cp-files">
        {cp.affected_files.map((f) => (
          <div key={f.file_path} class={`cp-file${f.file_path === file ? " active" : ""}`}>
            <button class="link" data-testid="checkpoint-file" onClick={() => setFile(f.file_path)}>
              {f.file_path}
            </button>
            {f.hunk_ids.map((h, i) => {
              // Where it is now; one rejected or settled has nothing to revert.
              const now = f.hunks_now[i];
              const line = now ? now.line : hunkLine(f, i);
              const revertible = now !== undefined && now !== null && now.status !== "rejected";
              const why = !now ? "final, or no longer under review" : now.status === "rejected" ? "rejected" : null;
              const words = hunkWords(f, i);
              return (
                <label key={h} class={`cp-hunk${revertible ? "" : " cp-hunk-done"}`} title={why ? `${h}: ${why}` : h}>
                  <input type="checkbox" data-testid="checkpoint-hunk" data-hunk-id={h} disabled={!revertible} checked={chosen.has(h)} onChange={() => toggle(h)} />
                  {line ? `line ${line}` : now ? "whole file" : `change ${i + 1}`}
                  {words && <span class="cp-hunk-words">: {words}</span>}
                  {why && <span class="muted"> ({why})</span>}
                </label>
              );
            })}
          </div>
        ))}
      </div>
      {file && <Compare id={cp.checkpoint_id} file={file} proposal={cp.kind === "run"} />}
    </div>
  );
}

/** The three texts of a file at a checkpoint, side by side: before the run,
 * as the run proposed it, and now. The later two mark what differs from
 * the first, word by word; the first marks what either of them took out. */
function Compare({ id, file, proposal }: { id: string; file: string; proposal: boolean }) {
  const panes = useRef<(HTMLDivElement | null)[]>([]);
  const [three, setThree] = useState<ThreeWay | null>(null);
  useEffect(() => {
    setThree(null);
    void attempt("Loading the compare", () => api.diff3(id, { file_path: file })).then((t) => t && setThree(t));
  }, [id, file, rollbacks.value]);
  useEffect(() => {
    if (!three) return;
    let live = true;
    let close = () => {};
    // The editor's code, loaded with the editor after the first paint.
    void import("./comparePanes").then(({ showPanes }) => {
      if (live) close = showPanes(three, panes.current, proposal);
    });
    return () => {
      live = false;
      close();
    };
  }, [three]);
  // A checkpoint no run took (your typing kept before a decision, a
  // rollback's undo) has no proposal: its text and the file now.
  const panes3 = proposal
    ? ([["Before the run", "before", three?.checkpoint_base], ["As proposed", "proposed", three?.agent_proposed], ["Now", "now", three?.current_file]] as const)
    : ([["At the checkpoint", "before", three?.checkpoint_base], ["Now", "now", three?.current_file]] as const);
  return (
    <div class="compare" data-testid="compare">
      <div class="compare-panes">
        {panes3.map(([label, id, text], i) => (
          <div key={label} class="compare-pane" data-testid={`compare-${id}`}>
            <div class="muted compare-label">
              {label}
              {three && text === null && " (no file)"}
            </div>
            <div class="merge-host" ref={(el) => {
                panes.current[i] = el;
              }} />
          </div>
        ))}
      </div>
    </div>
  );
}
