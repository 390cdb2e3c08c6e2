// The job as it happens: tool calls with their arguments and result counts,
// the assistant's streamed text, questions and status changes.

import { useMemo } from "preact/hooks";
import type { Event, JsonValue } from "../api/types";
import { jobEvents } from "../state/store";
import { STATUS_WORDS, tallyWords } from "../words";

interface Row {
  key: string;
  kind: "tool" | "text" | "status" | "question" | "note" | "progress";
  title: string;
  detail?: string;
  ok?: boolean;
  /** A run over many notes: notes done of all. */
  progress?: { done: number; total: number };
}

/** Dollars as the meter shows them. */
const dollars = (usd: number) => `$${usd.toFixed(usd < 1 ? 4 : 2)}`;

function summarize(args: JsonValue): string {
  if (!args || typeof args !== "object" || Array.isArray(args)) return "";
  return Object.entries(args)
    .filter(([k]) => k !== "edits")
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
    .join(", ")
    .slice(0, 240);
}

/** What a `propose_edits` call asks, in words: its edits counted, and each
 * vault operation by its kind and what it changes ("replace text “Atlas” →
 * “Meridian”"), never "0 edit(s)" for an operation. */
function proposal(args: JsonValue): string {
  const n = editCount(args);
  const ops = args && typeof args === "object" && !Array.isArray(args) && Array.isArray(args.operations) ? args.operations : [];
  const said = ops.map((op) => {
    if (!op || typeof op !== "object" || Array.isArray(op)) return "an operation";
    const kind = String(op.op ?? "operation").replaceAll("_", " ");
    const from = op.find ?? op.from ?? op.key ?? op.property;
    const to = op.replace ?? op.to ?? op.new_key ?? op.value;
    return typeof from === "string" && typeof to === "string" ? `${kind} “${from}” → “${to}”` : typeof from === "string" ? `${kind} “${from}”` : kind;
  });
  return [...(n > 0 || said.length === 0 ? [`${n} edit(s)`] : []), ...said].join(" · ");
}

/** How many edits a `propose_edits` call's arguments hold (the log gives
 * their number; an older log, the edits). */
function editCount(args: JsonValue): number {
  const edits = args && typeof args === "object" && !Array.isArray(args) ? args.edits : undefined;
  return Array.isArray(edits) ? edits.length : typeof edits === "number" ? edits : 0;
}

/** What a tool's result counts, in words: a read counts lines, a listing files. */
const UNIT: Record<string, [string, string]> = {
  read_file: ["line", "lines"],
  list_files: ["file", "files"],
  search_project: ["matching line", "matching lines"],
  find_files: ["file", "files"],
  links: ["link", "links"],
};

/** `count` results of `tool`, in its unit ("11 lines"). */
function counted(tool: string, count: number | null | undefined) {
  if (count === null || count === undefined) return "done";
  const [one, many] = UNIT[tool] ?? ["result", "results"];
  return `${count} ${count === 1 ? one : many}`;
}

/** Folds the event log into rows: a call and its result share one row; text deltas join. */
export function rows(events: Event[]): Row[] {
  const out: Row[] = [];
  const calls = new Map<string, Row>();
  let run: Row | undefined;
  /** Ends a call's row with its outcome; a failure says why, in the
   * tool's own words, in place of the call's arguments. */
  const finish = (id: string, ok: boolean, outcome: (tool: string) => string, why?: string) => {
    const row = calls.get(id);
    if (!row) return;
    row.ok = ok;
    row.title = `${row.title} → ${outcome(row.title)}`;
    if (why) row.detail = why;
  };
  for (const e of events) {
    switch (e.type) {
      case "tool.call.requested": {
        const d = e.data;
        // A question shows once, as its own row (and the card), not as a call.
        if (d.tool === "clarify_user") break;
        const detail = d.tool === "propose_edits" ? proposal(d.arguments) : summarize(d.arguments);
        const row: Row = { key: `c${e.cursor}`, kind: "tool", title: d.tool, detail };
        calls.set(d.tool_call_id, row);
        out.push(row);
        break;
      }
      case "tool.call.completed": {
        const d = e.data;
        const count = d.result_count;
        finish(d.tool_call_id, d.ok, (tool) => (d.ok ? counted(tool, count) : (d.error?.code ?? "failed")), d.ok ? undefined : d.error?.message);
        break;
      }
      case "tool.call.failed":
        finish(e.data.tool_call_id, false, () => e.data.code, e.data.message);
        break;
      case "assistant.delta": {
        const last = out[out.length - 1];
        if (last?.kind === "text") last.title += e.data.text;
        else out.push({ key: `t${e.cursor}`, kind: "text", title: e.data.text });
        break;
      }
      case "clarification.requested":
        out.push({ key: `q${e.cursor}`, kind: "question", title: `Asked: ${e.data.question}` });
        break;
      case "clarification.received":
        out.push({ key: `a${e.cursor}`, kind: "question", title: e.data.skipped ? "Skipped" : `Answered: ${e.data.answer ?? ""}` });
        break;
      case "edits.proposed": {
        // A vault-wide operation's changes are counted as the review counts
        // them, with what it found and left alone beside.
        const ops = e.data.operations ?? [];
        const title = ops.length
          ? `Proposed ${e.data.edits.toLocaleString()} change(s) in ${e.data.files.toLocaleString()} note(s)`
          : `Proposed ${e.data.edits} edit(s) in ${e.data.files} file(s)`;
        out.push({ key: `e${e.cursor}`, kind: "note", title, detail: ops.map(tallyWords).join("; ") || undefined });
        break;
      }
      case "edits.refused": {
        const d = e.data;
        const why = d.message ?? `${d.errors?.length ?? 0} problem(s)`;
        out.push({ key: `r${e.cursor}`, kind: "note", title: `Edits refused: ${why}`, ok: false });
        break;
      }
      case "budget.warning":
        out.push({ key: `b${e.cursor}`, kind: "note", title: "Nearing the budget: the agent was asked to wrap up" });
        break;
      case "provider.retry":
        out.push({ key: `p${e.cursor}`, kind: "note", title: `Provider retry ${e.data.attempt}` });
        break;
      case "agent.reminded":
        out.push({ key: `m${e.cursor}`, kind: "note", title: "The agent stopped without proposing: reminded to end with propose_edits" });
        break;
      case "fan_out.planned": {
        const d = e.data;
        const cost = d.projected_cost_usd > 0 ? ` · about ${dollars(d.projected_cost_usd)}` : "";
        run = {
          key: `o${e.cursor}`,
          kind: "progress",
          title: `One call per note: ${d.notes.toLocaleString()} notes`,
          detail: `about ${(d.projected_input_tokens + d.projected_output_tokens).toLocaleString()} tokens${cost}` +
            (d.protected > 0 ? ` · ${d.protected} protected left out` : "") +
            (d.needs_confirmation ? " · waits for your go-ahead" : ""),
          progress: { done: 0, total: d.notes },
        };
        out.push(run);
        break;
      }
      case "fan_out.progress": {
        const d = e.data;
        if (!run) break;
        run.progress = { done: d.done, total: d.total };
        run.title = `One call per note: ${d.done.toLocaleString()} of ${d.total.toLocaleString()} notes`;
        run.detail = `${d.changed} changed · ${d.failed} failed · ${(d.input_tokens + d.output_tokens).toLocaleString()} tokens · ${dollars(d.cost_usd)}`;
        run.ok = d.failed === 0 ? undefined : false;
        break;
      }
      case "review.finished":
        out.push({ key: `f${e.cursor}`, kind: "note", title: `Review finished: ${e.data.accepted} accepted, ${e.data.rejected} rejected` });
        break;
      case "job.status":
        out.push({ key: `s${e.cursor}`, kind: "status", title: STATUS_WORDS[e.data.status] ?? e.data.status });
        break;
    }
  }
  return out;
}

export function Timeline() {
  const list = useMemo(() => rows(jobEvents.value), [jobEvents.value]);
  return (
    <ol class="timeline" data-testid="timeline">
      {list.map((r) => (
        <li key={r.key} class={`tl tl-${r.kind}${r.ok === false ? " tl-failed" : ""}`} data-testid={`timeline-${r.kind}`}>
          <span class="tl-title">{r.title}</span>
          {r.progress && (
            <progress class="tl-progress" data-testid="fan-out-progress" value={r.progress.done} max={r.progress.total} />
          )}
          {r.detail && <span class="tl-detail">{r.detail}</span>}
        </li>
      ))}
    </ol>
  );
}
