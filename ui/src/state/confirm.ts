// A decision that moves more than its hunk, or asks why: the question shown
// before it is made, answered by the decision dialog.

import { signal } from "@preact/signals";
import type { HunkMove, LinkLeft, Status } from "../api/types";

/** What a decision would do, as the engine planned it. */
export interface DecisionQuestion {
  /** The hunk decided. */
  hunkId: string;
  /** Its file. */
  path: string;
  /** The decision. */
  status: Status;
  /** The other hunks it would move with it. */
  carried: HunkMove[];
  /** Text the user typed inside the hunks it would take out of the buffer. */
  hidden: string[];
  /** The links it would leave naming a note's old path (a move's link
   * update rejected while the move counts). */
  linksLeft: LinkLeft[];
  /** Whether to ask for a reason (a reject the user chose to explain). */
  withReason: boolean;
}

/** The user's answer: go ahead (with a reason, maybe), or `null` to leave it. */
export type DecisionAnswer = { reason?: string } | null;

/** The question on screen, with the way to answer it. */
export const question = signal<(DecisionQuestion & { answer(a: DecisionAnswer): void }) | null>(null);

/** Shows `q` and resolves with the user's answer. A question already shown
 * is answered `null` first. */
export function ask(q: DecisionQuestion): Promise<DecisionAnswer> {
  question.value?.answer(null);
  return new Promise((resolve) => {
    question.value = {
      ...q,
      answer(a) {
        question.value = null;
        resolve(a);
      },
    };
  });
}
