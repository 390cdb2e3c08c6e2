// The agent sidebar: sessions, the chat, the live timeline of the job, the
// clarification card, context rows and the instruction box.

import { computed } from "@preact/signals";
import { useEffect, useRef, useState } from "preact/hooks";
import type { Job } from "../api/types";
import * as agent from "../state/agent";
import * as review from "../state/review";
import { addOpenFile, addSelection } from "../state/context";
import { agents, contextRows, hunkInfo, job, jobEvents, overlay, reviewItems, session, sessions, setup } from "../state/store";
import { SetupCard } from "./SetupCard";
import { STATUS_WORDS } from "../words";
import { risks } from "../flags";
import { Timeline } from "./Timeline";

const RUNNING = new Set(["queued", "running", "waiting_for_user"]);

export function Sidebar() {
  return (
    <div class="sidebar">
      <Sessions />
      <Conversation />
      {/* A notice beside the review, never in its place: reviewing, applying,
          renaming and a terminal agent's writes need no model. */}
      {setup.value && !setup.value.ready && <SetupCard />}
      <JobBar />
      <Clarification />
      <Composer />
    </div>
  );
}

function Sessions() {
  const s = session.value;
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState("");
  return (
    <div class="sessions">
      {renaming && s ? (
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            void agent.renameSession(name.trim()).then(() => setRenaming(false));
          }}
        >
          <input data-testid="session-name" value={name} onInput={(e) => setName(e.currentTarget.value)} autoFocus aria-label="Session name" />
          <button type="submit">Rename</button>
          <button type="button" onClick={() => setRenaming(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <>
          <select
            class="session-select"
            data-testid="session-select"
            aria-label="Session"
            value={s?.session_id ?? ""}
            title={s ? (s.name ?? s.session_id) : undefined}
            onChange={(e) => void agent.selectSession(e.currentTarget.value)}
          >
            {!s && <option value="">No session yet</option>}
            {sessions.value.map((x) => (
              <option key={x.session_id} value={x.session_id}>
                {x.name ?? "Untitled session"}
              </option>
            ))}
          </select>
          <div class="row">
            <NewSession />
            <button
              disabled={!s}
              onClick={() => {
                setName(s?.name ?? "");
                setRenaming(true);
              }}
              title="Rename the session"
            >
              Rename
            </button>
            <button disabled={!s} onClick={() => void agent.clearSession()} title="Clear the chat and context">
              Clear
            </button>
            <button
              disabled={!s}
              data-testid="delete-session"
              onClick={() => confirm("Delete this session and its chat?") && void agent.deleteSession()}
              title="Delete the session"
            >
              Delete
            </button>
          </div>
          {/* An external agent's session is named for it; only an agent of the config has a line of its own. */}
          {s && s.agent_id !== "default" && !s.agent_id.startsWith("mcp:") && (
            <div class="muted" data-testid="session-agent">
              Agent: {agents.value.find((a) => a.agent_id === s.agent_id)?.display_name ?? s.agent_id}
            </div>
          )}
        </>
      )}
    </div>
  );
}

/** "New" starts a session with the built-in agent; with agents configured,
 * it first lists them, each with its description. */
function NewSession() {
  const [picking, setPicking] = useState(false);
  const list = agents.value;
  if (list.length <= 1)
    return (
      <button data-testid="new-session" onClick={() => void agent.newSession()} title="New session">
        New
      </button>
    );
  return (
    <span class="new-session">
      <button data-testid="new-session" aria-expanded={picking} onClick={() => setPicking(!picking)} title="New session with an agent">
        New ▾
      </button>
      {picking && (
        <div class="agent-menu" role="menu" data-testid="agent-menu">
          {list.map((a) => (
            <button
              key={a.agent_id}
              role="menuitem"
              data-testid="agent-option"
              onClick={() => {
                setPicking(false);
                void agent.newSession(a.agent_id);
              }}
            >
              <b>{a.display_name}</b>
              {a.description && <span class="muted">{a.description}</span>}
            </button>
          ))}
        </div>
      )}
    </span>
  );
}

function Conversation() {
  const list = useRef<HTMLDivElement>(null);
  const chat = session.value?.chat ?? [];
  const j = job.value;
  // The chat keeps earlier jobs; the current job's lines show in its timeline.
  const earlier = chat.filter((m) => m.job_id === null || m.job_id !== j?.job_id);
  useEffect(() => {
    const el = list.current;
    if (el && el.scrollHeight - el.scrollTop - el.clientHeight < 80) el.scrollTop = el.scrollHeight;
  });
  return (
    <div class="conversation" ref={list} data-testid="conversation">
      {earlier.map((m, i) => (
        <div key={i} class={`chat chat-${m.role}`}>
          {m.content}
        </div>
      ))}
      {j && (
        <>
          <div class="chat chat-user">{j.instruction}</div>
          <Timeline />
        </>
      )}
      {!j && earlier.length === 0 && <p class="empty">Ask for a change across your notes. The agent searches, reads, may ask you a question, and proposes hunks for you to review.</p>}
    </div>
  );
}

/** Whether a model ran the job: one from the tree, an operation, an MCP
 * client, a terminal agent or another program (driven as `mcp:…`) has no
 * tools, tokens or cost of its own to show. */
function ranModel(j: Job) {
  if (j.provider?.startsWith("mcp:")) return false;
  return j.provider !== null || j.usage.tool_calls > 0 || j.usage.input_tokens + j.usage.output_tokens > 0;
}

function budget(j: Job) {
  const tools = `${j.usage.tool_calls}/${j.max_tool_calls}`;
  const tokens = j.usage.input_tokens + j.usage.output_tokens;
  return { tools, tokens, ratio: Math.min(1, j.usage.tool_calls / Math.max(1, j.max_tool_calls)) };
}

/** The sidebar job's hunks still pending, as the tree knows them now (it
 * follows each decision at once). Computed once per change, not on each of
 * the job's events. */
const jobPending = computed(() => {
  const id = job.value?.job_id;
  const info = hunkInfo.value;
  let pending = 0;
  let flagged = 0;
  // A hunk the tree lists before the review's listing brings it: whose it is
  // is not known yet, so the job is not said to be all decided.
  let unlisted = 0;
  for (const item of reviewItems.value) {
    const hunk = info.get(item.hunk);
    if (!hunk) unlisted++;
    if (id === undefined || hunk?.job_id !== id) continue;
    pending++;
    if (risks(hunk.flags).length) flagged++;
  }
  return { pending, flagged, unlisted };
});

function JobBar() {
  const j = job.value;
  if (!j) return <div class="jobbar jobbar-empty" />;
  const b = budget(j);
  const finished = jobEvents.value.find((e) => e.type === "review.finished")?.data;
  // Both as the tree knows them now: a rejected flagged hunk is no longer counted.
  const { pending: pendingInJob, flagged: flaggedInJob, unlisted } = jobPending.value;
  // A long apply says how far it has come until it completes.
  const lastApply = [...jobEvents.value].reverse().find((e) => e.type === "apply.progress" || e.type === "apply.completed");
  const applying = lastApply?.type === "apply.progress" && lastApply.data.done < lastApply.data.total ? lastApply.data : null;
  return (
    <div class="jobbar">
      <div class="row">
        <span class={`status status-${j.status}`} data-testid="job-status" data-status={j.status} data-job-id={j.job_id}>
          {STATUS_WORDS[j.status]}
        </span>
        {ranModel(j) ? (
          <>
            <span class="meter" title={`${b.tools} tool calls`}>
              <span class="meter-fill" style={{ width: `${b.ratio * 100}%` }} />
            </span>
            <span class="muted" data-testid="budget">
              {b.tools} tools · {b.tokens.toLocaleString()} tokens · ${j.usage.cost_usd.toFixed(4)}
            </span>
          </>
        ) : (
          // A move from the tree, an MCP client's or another program's change.
          <span class="muted" data-testid="budget">
            No model ran
          </span>
        )}
      </div>
      {j.error && (
        <div class="error-text" data-testid="job-error">
          {j.error.message}
        </div>
      )}
      {applying && (
        <div class="row">
          <progress data-testid="apply-progress" max={applying.total} value={applying.done} />
          <span class="muted">
            Writing {applying.done.toLocaleString()} of {applying.total.toLocaleString()} files
          </span>
        </div>
      )}
      {finished && (
        <div class="muted" data-testid="review-finished">
          Review finished: {finished.accepted} accepted, {finished.rejected} rejected, all saved.
        </div>
      )}
      {j.status === "awaiting_review" && j.waiting_agent && (
        <div class="agent-waiting" data-testid="job-agent-waiting" role="status">
          {j.waiting_agent} is waiting for your decision before it writes
        </div>
      )}
      {j.status === "awaiting_review" && (
        <div class="row">
          <span class="muted" data-testid="job-review-status">
            {pendingInJob > 0
              ? `${pendingInJob.toLocaleString()} hunk(s) to review`
              : unlisted > 0
                ? "Listing the review…"
                : "All hunks decided: save the files to finish"}
            {flaggedInJob > 0 && <span class="flag-count"> · ⚑ {flaggedInJob.toLocaleString()} flagged</span>}
          </span>
          <span class="spacer" />
          <button
            data-testid="accept-job"
            onClick={() => void review.decideMany({ kind: "job", job_id: j.job_id }, "accepted", "every pending hunk of this run")}
            title="Accept every pending hunk of this run, as one step; nothing is written until you save or apply (Undo takes it back)"
          >
            Accept all
          </button>
          <button
            data-testid="reject-job"
            onClick={() => void review.decideMany({ kind: "job", job_id: j.job_id }, "rejected", "every pending hunk of this run")}
            title="Reject every pending hunk of this run; nothing is written until you save (Undo brings them back)"
          >
            Reject all pending
          </button>
          <button data-testid="read-job" onClick={() => (overlay.value = "document")} title="Read this run's notes as one document, rendered, each change marked and decided in place (Alt+Shift+R)">
            Read
          </button>
          <button class="primary" data-testid="apply-job" onClick={() => void agent.finishReview()} title="Save the files of this run's accepted hunks (with anything you typed in them) and reject what is still pending">
            Apply
          </button>
        </div>
      )}
      {j.error?.code === "conflict" && (
        <button onClick={() => void agent.rerun()} data-testid="rerun">
          Run again on the current files
        </button>
      )}
    </div>
  );
}

function Clarification() {
  const j = job.value;
  const q = j?.status === "waiting_for_user" ? j.pending_question : null;
  const [text, setText] = useState("");
  if (!q) return null;
  const send = (answer: string | null) => {
    void agent.answer(answer);
    setText("");
  };
  return (
    <div class="clarify" role="group" aria-label="The agent asks" data-testid="clarify">
      <div class="clarify-q">{q.question}</div>
      <div class="row wrap">
        {q.suggested_answers.map((a) => (
          <button key={a} data-testid="suggested-answer" onClick={() => send(a)}>
            {a}
          </button>
        ))}
      </div>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          if (text.trim()) send(text.trim());
        }}
      >
        <input data-testid="clarify-answer" value={text} onInput={(e) => setText(e.currentTarget.value)} placeholder="Your answer" aria-label="Your answer" />
        <button type="submit" class="primary" data-testid="clarify-send" disabled={!text.trim()}>
          Answer
        </button>
        <button type="button" data-testid="clarify-skip" onClick={() => send(null)}>
          Skip
        </button>
      </form>
    </div>
  );
}

function Composer() {
  const [text, setText] = useState("");
  // The run asked for and not yet started: a second press would start a
  // second run, and what the user types meanwhile is the next instruction.
  const [starting, setStarting] = useState(false);
  const j = job.value;
  const running = j !== null && RUNNING.has(j.status);
  const submit = async () => {
    const instruction = text.trim();
    if (!instruction || running || starting) return;
    setStarting(true);
    try {
      if (await agent.run(instruction)) setText((now) => (now.trim() === instruction ? "" : now));
    } finally {
      setStarting(false);
    }
  };
  return (
    <div class="composer">
      <div class="context" data-testid="context-rows">
        {contextRows.value.map((r) => (
          <div key={r.id} class="context-row" data-testid="context-row">
            <span class="ctx-label" title={r.content.slice(0, 400)}>
              {r.kind === "selection" ? `${r.file_path}:${r.start_line}–${r.end_line}` : (r.file_path ?? r.kind)}
            </span>
            <button class={`pin${r.pinned ? " on" : ""}`} onClick={() => agent.togglePin(r.id)} title={r.pinned ? "Pinned: kept for later runs" : "For the next run only"} aria-pressed={r.pinned}>
              {r.pinned ? "Pinned" : "Pin"}
            </button>
            <button class="link" onClick={() => agent.removeContext(r.id)} aria-label="Remove">
              ×
            </button>
          </div>
        ))}
        <div class="row">
          <button onClick={() => addSelection()} data-testid="add-selection" title="Add the editor's selection (Alt+L)">
            + Selection
          </button>
          <button onClick={() => addOpenFile()} data-testid="add-file" title="Add the open file">
            + File
          </button>
        </div>
      </div>
      <textarea
        data-testid="instruction"
        aria-label="Instruction"
        placeholder="What should change? (Ctrl+Enter runs)"
        value={text}
        rows={4}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if ((e.ctrlKey || e.metaKey) && e.key === "Enter") {
            e.preventDefault();
            void submit();
          }
        }}
      />
      <div class="row">
        <span class="spacer" />
        {running ? (
          <button data-testid="cancel" onClick={() => void agent.cancel()}>
            Cancel
          </button>
        ) : (
          <button class="primary" data-testid="run" disabled={!text.trim() || starting} onClick={() => void submit()}>
            Run
          </button>
        )}
      </div>
    </div>
  );
}
