// The job as it happens: tool calls with their arguments and result counts,
// the assistant's streamed text, questions and status changes.

import { useMemo } from "preact/hooks";
import type { Event } from "../api/types";
import { jobEvents } from "../state/store";

interface Row {
  key: string;
  kind: "tool" | "text" | "status" | "question" | "note";
  title: string;
  detail?: string;
  ok?: boolean;
}

type Data = Record<string, unknown>;

function summarize(args: unknown): string {
  if (!args || typeof args !== "object") return "";
  return Object.entries(args as Data)
    .filter(([k]) => k !== "edits")
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
    .join(", ")
    .slice(0, 240);
}

/** Folds the event log into rows: a call and its result share one row; text deltas join. */
export function rows(events: Event[]): Row[] {
  const out: Row[] = [];
  const calls = new Map<string, Row>();
  for (const e of events) {
    const d = (e.data ?? {}) as Data;
    switch (e.type) {
      case "tool.call.requested": {
        const row: Row = { key: `c${e.cursor}`, kind: "tool", title: String(d.tool), detail: summarize(d.arguments) };
        if (d.tool === "propose_edits") {
          const edits = (d.arguments as Data | undefined)?.edits;
          row.detail = `${Array.isArray(edits) ? edits.length : 0} edit(s)`;
        }
        calls.set(String(d.tool_call_id), row);
        out.push(row);
        break;
      }
      case "tool.call.completed":
      case "tool.call.failed": {
        const row = calls.get(String(d.tool_call_id));
        if (!row) break;
        row.ok = d.ok !== false && e.type !== "tool.call.failed";
        const err = d.error as Data | undefined;
        row.title = `${row.title} → ${row.ok ? `${d.result_count ?? "done"} result${d.result_count === 1 ? "" : "s"}` : String(err?.code ?? "failed")}`;
        break;
      }
      case "assistant.delta": {
        const last = out[out.length - 1];
        if (last?.kind === "text") last.title += String(d.text ?? "");
        else out.push({ key: `t${e.cursor}`, kind: "text", title: String(d.text ?? "") });
        break;
      }
      case "clarification.requested":
        out.push({ key: `q${e.cursor}`, kind: "question", title: `Asked: ${d.question}` });
        break;
      case "clarification.received":
        out.push({ key: `a${e.cursor}`, kind: "question", title: d.skipped ? "Skipped" : `Answered: ${d.answer ?? ""}` });
        break;
      case "edits.proposed":
        out.push({ key: `e${e.cursor}`, kind: "note", title: `Proposed ${d.edits} edit(s) in ${Array.isArray(d.files) ? d.files.length : 0} file(s)` });
        break;
      case "edits.refused":
        out.push({ key: `r${e.cursor}`, kind: "note", title: `Edits refused: ${d.message ?? (Array.isArray(d.errors) ? `${d.errors.length} problem(s)` : "")}`, ok: false });
        break;
      case "budget.warning":
        out.push({ key: `b${e.cursor}`, kind: "note", title: "Nearing the budget: the agent was asked to wrap up" });
        break;
      case "provider.retry":
        out.push({ key: `p${e.cursor}`, kind: "note", title: `Provider retry ${d.attempt ?? ""}` });
        break;
      case "job.status":
        out.push({ key: `s${e.cursor}`, kind: "status", title: String(d.status) });
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
          {r.detail && <span class="tl-detail">{r.detail}</span>}
        </li>
      ))}
    </ol>
  );
}
