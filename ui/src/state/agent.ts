// The agent sidebar's actions: sessions, runs, the job's live events, the
// clarification answer, and the job-wide review decisions.

import { api } from "../api/client";
import type { ContextRow, JobUpdated, Session } from "../api/types";
import { refreshTree, treeListed } from "./listing";
import { openFirstPending, reloadOpen } from "./navigation";
import { loadSetup } from "./setup";
import { agents, attempt, contextRows, job, jobEvents, session, sessions, setup, tell } from "./store";

const ENDED = new Set(["completed", "failed", "cancelled", "budget_exceeded"]);
/** Statuses of a job still making its proposal. */
const LIVE = new Set(["queued", "running", "waiting_for_user"]);

/** Loads the agent definitions a session can start with. */
export async function loadAgents() {
  const list = await attempt("Loading agents", () => api.agents());
  if (list) agents.value = list;
}

/** Shows the newest session once the listing under way (which lists the
 * sessions with the review, from one moment of the engine: a cold load's
 * first) is in, unless one is shown. */
export async function loadSessions() {
  await treeListed();
  await showNewest();
}

/** Shows the newest session listed, unless one is shown. */
async function showNewest() {
  const newest = sessions.value[0];
  if (!session.value && newest) await selectSession(newest.session_id);
}

/** The latest selection: an earlier one answered late does not undo it. */
let selecting = 0;

/** Shows session `id`: its chat, its context, its latest job. It is the
 * session at once (as the list knows it), so what is done next — rename,
 * delete, run — acts on it, not on the one shown before. */
export async function selectSession(id: string) {
  const mine = ++selecting;
  const show = (s: Session) => {
    session.value = s;
    contextRows.value = s.context_rows;
    job.value = null;
    jobEvents.value = [];
  };
  const known = sessions.value.find((s) => s.session_id === id);
  if (known) show(known);
  const s = await attempt("Opening the session", () => api.session(id));
  if (!s || mine !== selecting) return;
  show(s);
  // Followed for as long as it runs, which no caller waits for.
  if (s.last_job_id) void follow(s.last_job_id);
}

/** A new session with agent `agentId` (default: the built-in one), shown at once. */
export async function newSession(agentId?: string) {
  const created = await attempt("Creating a session", () => api.createSession({ agent_id: agentId ?? null }));
  if (!created) return;
  await refreshTree();
  await selectSession(created.session_id);
}

/** Renames the shown session. */
export async function renameSession(name: string) {
  const s = session.value;
  if (!s) return;
  const renamed = await attempt("Renaming", () => api.renameSession(s.session_id, { name }));
  if (renamed) {
    session.value = renamed;
    await refreshTree();
  }
}

/** Clears the shown session's chat and context. */
export async function clearSession() {
  const s = session.value;
  if (!s) return;
  const cleared = await attempt("Clearing", () => api.clearSession(s.session_id));
  if (cleared) {
    session.value = cleared;
    contextRows.value = [];
    job.value = null;
    jobEvents.value = [];
  }
}

/** Deletes the shown session and shows the next one. */
export async function deleteSession() {
  const s = session.value;
  if (!s) return;
  if (!(await attempt("Deleting", () => api.deleteSession(s.session_id)))) return;
  session.value = null;
  job.value = null;
  jobEvents.value = [];
  contextRows.value = [];
  await refreshTree();
  await showNewest();
}

/** Adds a context row for the next run (pinned by default). */
export function addContext(row: Omit<ContextRow, "id" | "pinned">) {
  const id = `ctx_ui_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  contextRows.value = [...contextRows.value, { ...row, id, pinned: true }];
}

/** Pins or unpins a row. */
export function togglePin(id: string) {
  contextRows.value = contextRows.value.map((r) => (r.id === id ? { ...r, pinned: !r.pinned } : r));
}

/** Removes a row. */
export function removeContext(id: string) {
  contextRows.value = contextRows.value.filter((r) => r.id !== id);
}

/** Runs the agent on `instruction` in the shown session (a new one if
 * none). With no usable model it starts nothing: the setup card shows. */
export async function run(instruction: string): Promise<boolean> {
  if (!setup.value?.ready) await loadSetup();
  if (setup.value && !setup.value.ready) return false;
  // A session of the tree, the operations or an external agent holds their
  // proposals, not the user's runs: a run there starts a session of its own.
  if (!session.value || session.value.agent_id.startsWith("mcp:")) await newSession();
  const s = session.value;
  if (!s) return false;
  const started = await attempt("Starting the run", () => api.run({ session_id: s.session_id, instruction, context_rows: contextRows.value }));
  if (!started) return false;
  // Unpinned rows were for this run only.
  contextRows.value = contextRows.value.filter((r) => r.pinned);
  void follow(started.job_id);
  // The first instruction titles the session.
  if (!s.name) void refreshTree().then(() => {
    const titled = sessions.value.find((x) => x.session_id === s.session_id);
    if (titled && session.value?.session_id === s.session_id) session.value = { ...session.value, name: titled.name };
  });
  return true;
}

let following = 0;

/** Shows job `id` and follows its events until it ends (or another job is shown). */
export async function follow(id: string) {
  const ticket = ++following;
  const first = await attempt("Loading the job", () => api.job(id, { brief: true }));
  if (!first || ticket !== following) return;
  job.value = first;
  jobEvents.value = [];
  let cursor = 0;
  let status = first.status;
  // A job that was no longer running when it was shown staged its hunks
  // before: the review listed already has them, and its first page of
  // events (its past) lists nothing again.
  let past = !LIVE.has(first.status);
  for (;;) {
    let page;
    try {
      // A long poll only while the job runs: one that no longer does has
      // nothing more to say here (the project feed tells when it changes),
      // and a poll held open for nothing takes one of the browser's six
      // connections to the server.
      page = await api.events(id, { cursor, wait_ms: LIVE.has(status) ? 25_000 : 0 });
    } catch {
      await new Promise((r) => setTimeout(r, 1000));
      if (ticket !== following) return;
      continue;
    }
    if (ticket !== following) return;
    cursor = page.next_cursor;
    if (page.events.length > 0) jobEvents.value = [...jobEvents.value, ...page.events];
    const changed = page.events.some((e) => e.type.startsWith("job.") || e.type === "clarification.requested" || e.type === "model.step" || e.type === "diff.generated" || e.type === "fan_out.progress");
    if (changed || page.status !== status) {
      status = page.status;
      const fresh = await attempt("Loading the job", () => api.job(id, { brief: true }));
      if (ticket !== following) return;
      if (fresh) job.value = fresh;
      // A run over many notes stages as its notes come back: each batch is in review at once.
      if (page.events.some((e) => e.type === "job.awaiting_review" || e.type === "diff.generated" || e.type === "fan_out.progress")) {
        await (past ? treeListed() : refreshTree());
        if (ticket === following) await openFirstPending(id);
      }
      if (page.events.some((e) => e.type.startsWith("job."))) {
        const s = session.value;
        if (s) {
          const fresher = await attempt("Loading the session", () => api.session(s.session_id));
          if (fresher && ticket === following) session.value = fresher;
        }
      }
    }
    past = false;
    if (!LIVE.has(status) && page.events.length === 0) {
      if (job.value?.error?.code === "no_provider") await loadSetup();
      return;
    }
  }
}

/** A job's status changed somewhere (the project feed): the session list
 * follows, a new job of the shown session is followed, and an external
 * agent's question is brought to the card unless the user's own job is
 * running or asking. */
export async function jobUpdated(update: JobUpdated) {
  // The shown job no follower watches (it no longer ran) changed: its review
  // finished, or an undo reopened it. It is followed again, its status and
  // actions with it.
  const shownJob = job.value;
  if (shownJob?.job_id === update.job_id && !LIVE.has(shownJob.status)) {
    if (shownJob.status !== update.status) void follow(update.job_id);
    // The same status: what changed is live (a terminal agent began or
    // stopped waiting on the job's review).
    else void refetchShown(update.job_id);
  }
  await refreshTree();
  const shown = session.value;
  const current = job.value;
  // The user's own runs are followed by `run`; only an external agent
  // starts jobs the page does not know of.
  const external = sessions.value.find((s) => s.session_id === update.session_id)?.agent_id.startsWith("mcp:") ?? false;
  if (!external) return;
  // Nothing shown yet (a first rename from the tree): its session is.
  if (!shown) return void (await selectSession(update.session_id));
  if (shown.session_id === update.session_id) {
    if (current?.job_id !== update.job_id && !ENDED.has(update.status)) await selectSession(update.session_id);
    return;
  }
  if (update.status === "waiting_for_user" && !busy()) await selectSession(update.session_id);
}

/** Whether the shown job is the user's attention now: it runs or asks. */
function busy(): boolean {
  const current = job.value;
  return current !== null && LIVE.has(current.status);
}

/** Fetches the shown job `id` again, if it is still the one shown. */
async function refetchShown(id: string) {
  const fresh = await api.job(id, { brief: true }).catch(() => null);
  if (fresh && job.value?.job_id === id) job.value = fresh;
}

/** A terminal agent waits on the review of its write (job `id`): the job
 * is shown, saying so, unless the shown job runs or asks. */
export async function showAgentWrite(id: string) {
  if (job.value?.job_id === id || busy()) return;
  const write = await api.job(id, { brief: true }).catch(() => null);
  if (!write || busy()) return;
  if (session.value?.session_id === write.session_id) {
    void follow(id);
    return;
  }
  await refreshTree();
  await selectSession(write.session_id);
}

/** Answers the pending question (`null` skips it). */
export async function answer(text: string | null) {
  const j = job.value;
  const q = j?.pending_question;
  if (!j || !q) return;
  const updated = await attempt("Answering", () => api.clarify(j.job_id, text === null ? { question_id: q.question_id, skip: true } : { question_id: q.question_id, answer: text }));
  if (updated) job.value = updated;
}

/** Stops the running job. */
export async function cancel() {
  const j = job.value;
  if (!j) return;
  const updated = await attempt("Cancelling", () => api.cancel(j.job_id));
  if (updated) job.value = updated;
}

/** Runs the shown job again (after a conflict). */
export async function rerun() {
  const j = job.value;
  if (!j) return;
  const started = await attempt("Re-running", () => api.rerun(j.job_id));
  if (started) void follow(started.job_id);
}

/** Applies the shown job's review: its accepted hunks are written to disk
 * (with what the user typed in their files), its pending ones rejected.
 * A job from the tree, an operation or a terminal agent is applied in its
 * own session, whichever one the sidebar shows. */
export async function finishReview() {
  const j = job.value;
  if (!j) return;
  // The engine lists the job's hunks: a vault-wide job's are megabytes.
  const applied = await attempt("Applying", () => api.apply({ session_id: j.session_id, job_id: j.job_id, accepted_hunk_ids: [], also_accept: "accepted", brief: true }));
  if (!applied) return;
  const conflicts = applied.applied_files.filter((f) => f.status !== "applied");
  const more = conflicts.length > 5 ? `, and ${(conflicts.length - 5).toLocaleString()} more` : "";
  if (conflicts.length > 0) tell("error", `Not written: ${conflicts.slice(0, 5).map((f) => `${f.file_path} (${f.message ?? f.status})`).join(", ")}${more}`);
  else tell("info", `Wrote ${applied.written.toLocaleString()} file(s)`);
  await Promise.all([refreshTree(), reloadOpen()]);
  void follow(j.job_id);
}
