// The application's state, as signals: components read them and re-render
// only where they are read; actions (the other modules of `state/`) write them.

import { computed, signal } from "@preact/signals";
import type { AgentDefinition, ContextRow, Event, FileContent, Job, OutsideDestructive, OutsideMode, PendingHunk, ProjectInfo, ReviewGroup, Session, Setup, TreeEntry } from "../api/types";

/** The open folder; null before one is open. */
export const project = signal<ProjectInfo | null>(null);
/** The desktop app has no folder open yet. */
export const needsFolder = signal(false);

/** The files with a working buffer, with their review state, sorted by path
 * (the folders' listings are in `state/tree.ts`). */
export const tree = signal<TreeEntry[]>([]);
/** The review's jobs, oldest first, as the engine last listed them (their hunks' details in `hunkInfo`). */
export const reviewJobs = signal<Pick<ReviewGroup, "job_id" | "instruction" | "source" | "patterns" | "flagged">[]>([]);
/** Each pending hunk's job, line and preview, by hunk id. */
export const hunkInfo = signal<ReadonlyMap<string, PendingHunk>>(new Map());
/** The file whose tree row shows the rename field (F2), if any. */
export const renaming = signal<string | null>(null);
/** The file in the editor, as the engine last described it. */
export const openFile = signal<FileContent | null>(null);
/** Files with typing the engine has not received yet. */
export const unsynced = signal<ReadonlySet<string>>(new Set());
/** The hunk the keys act on. */
export const currentHunk = signal<string | null>(null);

/** The sessions, newest first. */
export const sessions = signal<Session[]>([]);
/** The session in the sidebar. */
export const session = signal<Session | null>(null);
/** The job in the sidebar (the session's latest). */
export const job = signal<Job | null>(null);
/** Its events so far. */
export const jobEvents = signal<Event[]>([]);
/** The agent definitions a new session can start with. */
export const agents = signal<AgentDefinition[]>([]);
/** Whether a job can run now, and the ways to make one run; null until asked. */
export const setup = signal<Setup | null>(null);
/** Context for the next run (pinned rows stay in the session after it). */
export const contextRows = signal<ContextRow[]>([]);

/** Which overlay is open. */
export const overlay = signal<"none" | "checkpoints" | "settings" | "help" | "quickopen" | "search" | "replace" | "document">("none");
/** The last thing to tell the user (an error, or a confirmation). */
export const notice = signal<{ kind: "error" | "info"; text: string } | null>(null);

/** Notes another program just deleted, emptied or cut down, held for
 * review: shown at once with a one-click restore. */
export const outsideAlert = signal<OutsideDestructive | null>(null);

/** The MCP client the window offers review mode for while it is connected
 * (agents also write through their shell); null when no offer is shown,
 * `false` once the user said not now (no offer again while the window lives). */
export const reviewOffer = signal<string | null | false>(null);

/** Offers review mode for other programs' changes now that `client` is
 * connected, unless `mode` (in force here) is review already, or the user
 * said not now. */
export function offerReview(client: string, mode: OutsideMode) {
  if (mode !== "review" && reviewOffer.value !== false) reviewOffer.value = client;
}

/** Takes the offer away for as long as the window lives. */
export function declineReview() {
  reviewOffer.value = false;
}

/** Hunks decided here that the engine's answer has not taken out of the
 * tree yet: the review list leaves them out already. */
export const settling = signal<ReadonlySet<string>>(new Set());

/** Pending hunks across the project, in tree order, less those settling:
 * what the review list shows. */
export const reviewItems = computed(() => {
  const items: { path: string; hunk: string }[] = [];
  const gone = settling.value;
  for (const entry of tree.value) for (const hunk of entry.state.pending_hunks) if (!gone.has(hunk)) items.push({ path: entry.path, hunk });
  return items;
});

/** Files whose buffer holds what the disk does not. */
export const dirtyPaths = computed(() => {
  const paths = new Set(unsynced.value);
  for (const entry of tree.value) if (entry.state.dirty) paths.add(entry.path);
  return paths;
});

/** Tells the user `text`; errors stay until replaced, confirmations fade. */
export function tell(kind: "error" | "info", text: string) {
  const shown = { kind, text };
  notice.value = shown;
  if (kind === "info") setTimeout(() => notice.value === shown && (notice.value = null), 4000);
}

/** Runs `work`, telling the user if it fails. */
export async function attempt<T>(what: string, work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch (e) {
    tell("error", `${what}: ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  }
}
