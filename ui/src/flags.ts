// The engine's risk flags, in the words the window shows them in: the review
// list's rows and the hunks' boxes in the editor say the same.

import type { RiskFlag } from "./api/types";

/** A flag's rule, short (its reason is said in full where there is room). */
export const RULE: Record<RiskFlag["rule"], string> = {
  deletes_section: "deletes",
  shrinks_note: "shrinks",
  front_matter: "front matter",
  dead_link: "dead link",
  code_block: "code",
  table_shape: "table",
  unread_file: "unread file",
  whole_file: "rewrite",
  breaks_pattern: "outlier",
  deletes_linked_note: "linked note",
};

/** `flags` in short ("⚑ dead link, outlier"), or `null` when there are none. */
export function flagLabel(flags: readonly RiskFlag[] | undefined): string | null {
  return flags?.length ? `⚑ ${flags.map((f) => RULE[f.rule]).join(", ")}` : null;
}
