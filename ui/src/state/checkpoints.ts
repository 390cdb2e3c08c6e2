// The checkpoints as the engine lists them, a page at a time, and the
// rollbacks made from the window: the one place they are written.

import { signal } from "@preact/signals";
import { api } from "../api/client";
import type { Checkpoint, RollbackReport } from "../api/types";
import { refreshTree } from "./listing";
import { reloadOpen } from "./navigation";
import { attempt, overlay, tell } from "./store";
import { reloadListings } from "./tree";

const PAGE = 50;

/** The checkpoints listed so far, newest first. */
export const checkpoints = signal<Checkpoint[]>([]);
/** Where the next older page starts; null when every checkpoint is listed. */
export const olderCheckpoints = signal<string | null>(null);
/** The last rollback made here, while it can be undone from the panel. */
export const lastRollback = signal<RollbackReport | null>(null);
/** Bumped by every rollback, so that an open compare loads again. */
export const rollbacks = signal(0);

/** Loads the newest page of checkpoints again (after a rollback elsewhere),
 * while the panel shows them. */
export async function reloadCheckpoints() {
  if (overlay.value !== "checkpoints") return;
  const page = await attempt("Loading checkpoints", () => api.checkpoints({ before: null, limit: PAGE }));
  if (!page) return;
  checkpoints.value = page.checkpoints;
  olderCheckpoints.value = page.next_before;
}

/** Appends the next older page. */
export async function loadOlder() {
  const before = olderCheckpoints.value;
  if (!before) return;
  const page = await attempt("Loading older checkpoints", () => api.checkpoints({ before, limit: PAGE }));
  if (!page) return;
  checkpoints.value = [...checkpoints.value, ...page.checkpoints];
  olderCheckpoints.value = page.next_before;
}

/** Rolls back to checkpoint `id`: the hunks `scoped`, or (null) the whole
 * run; says what it did. */
export async function rollBackTo(id: string, scoped: string[] | null) {
  const request = scoped ? { mode: "scoped_selected" as const, hunk_ids: scoped } : { mode: "hard_all" as const };
  const report = await attempt("Rolling back", () => api.rollback(id, request));
  if (report) await rolledBack(report);
}

/** Undoes the last rollback made here. */
export async function undoRollback() {
  const undo = lastRollback.value;
  if (!undo) return;
  const report = await attempt("Undoing the rollback", () => api.rollback(undo.undo_checkpoint_id, { mode: "hard_all" }));
  if (!report) return;
  await rolledBack(report);
  lastRollback.value = null;
  tell("info", "Rollback undone");
}

async function rolledBack(report: RollbackReport) {
  lastRollback.value = report;
  rollbacks.value += 1;
  const failed = report.files.filter((f) => f.status === "conflict");
  if (failed.length) tell("error", `Not rolled back: ${failed.map((f) => `${f.file_path} (${f.message ?? f.status})`).join(", ")}`);
  else tell("info", `Rolled back ${report.files.length} file(s) in their buffers: save to write them (the checkpoints panel can undo it)`);
  await Promise.all([refreshTree(), reloadListings(), reloadOpen(), reloadCheckpoints()]);
}
