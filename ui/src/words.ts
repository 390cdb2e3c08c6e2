// The engine's names for things, as a person reads them.

import type { JobStatus } from "./api/types";

/** A job's status in words ("Waiting for you", not `waiting_for_user`). */
export const STATUS_WORDS: Record<JobStatus, string> = {
  queued: "Queued",
  running: "Running",
  waiting_for_user: "Waiting for you",
  awaiting_review: "Awaiting review",
  completed: "Completed",
  failed: "Failed",
  cancelled: "Cancelled",
  budget_exceeded: "Over budget",
};
