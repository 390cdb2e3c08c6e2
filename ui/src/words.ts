// The engine's names for things, as a person reads them.

import type { CheckpointFile, JobStatus } from "./api/types";
import { clip, clipChange } from "./clip.js";

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

/** What the run's hunk `i` of `f` changed, in a few words: the text it
 * put in and the text it took out, from its reverse patch (which takes the
 * run's text out and puts the old back). Empty when it changed no line
 * (a move or a deletion of the whole file). */
export function hunkWords(f: CheckpointFile, i: number): string {
  if (f.reverse_patches.length !== f.hunk_ids.length) return "";
  const lines = (f.reverse_patches[i] ?? "").split("\n");
  const side = (mark: string) =>
    lines
      .filter((l) => l.startsWith(mark) && !l.startsWith(mark.repeat(3)))
      .map((l) => l.slice(1).trim())
      .filter((l) => l !== "")
      .join(" ");
  const [put, took] = [side("-"), side("+")];
  const quote = (text: string) => `“${clip(text, 40)}”`;
  if (put && took) {
    const [was, now] = clipChange(took, put, 40);
    return `“${was}” → “${now}”`;
  }
  if (put) return `added ${quote(put)}`;
  if (took) return `removed ${quote(took)}`;
  return "";
}
