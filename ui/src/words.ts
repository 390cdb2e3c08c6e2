// The engine's names for things, as a person reads them.

import type { CheckpointFile, JobStatus, Part, Tally } from "./api/types";
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

/** The parts of a note an operation can leave alone, in the words the
 * replace panel and the timeline use. */
export const PARTS: [Part, string][] = [
  ["code", "code"],
  ["link_target", "link targets"],
  ["front_matter", "front matter"],
  ["url", "URLs"],
  ["tag", "tags"],
];

/** "left alone: 253 in front matter, 116 in code", or "" when nothing was. */
export function leftAlone(left: Partial<Record<Part, number>>): string {
  const shown = PARTS.filter(([part]) => (left[part] ?? 0) > 0).map(([part, name]) => `${(left[part] ?? 0).toLocaleString()} in ${name}`);
  return shown.length ? `left alone: ${shown.join(", ")}` : "";
}

/** What a vault-wide operation did, from its tally in the job's log:
 * "1,587 occurrences · left alone: 253 in front matter · 2 notes skipped". */
export function tallyWords(t: Tally): string {
  return [`${t.occurrences.toLocaleString()} occurrence(s) in ${t.notes_changed.toLocaleString()} note(s)`, leftAlone(t.left_alone), t.skipped > 0 ? `${t.skipped.toLocaleString()} note(s) skipped` : ""]
    .filter(Boolean)
    .join(" · ");
}
