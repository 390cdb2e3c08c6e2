// The engine's risk flags, in the words the window shows them in: the review
// list's rows and the hunks' boxes in the editor say the same.

import type { RiskFlag } from "./api/types";

/** A flag's rule, short (its reason is said in full where there is room).
 * How severe each is, and whether it is a risk, the engine says on the
 * flag itself (`severity`, `risk`). */
export const RULE: Record<RiskFlag["rule"], string> = {
  dead_link: "dead link",
  deletes_linked_note: "linked note",
  deletes_section: "deletes",
  shrinks_note: "shrinks",
  front_matter: "front matter",
  whole_file: "rewrite",
  table_shape: "table",
  code_block: "code",
  breaks_pattern: "outlier",
  unread_file: "unread file",
};

/** The flags that make a hunk one to look at first, the worst first. */
export function risks(flags: readonly RiskFlag[] | undefined): RiskFlag[] {
  return (flags ?? []).filter((f) => f.risk).sort((a, b) => a.severity - b.severity);
}

/** How severe a hunk's worst risk is: 0 for the worst rule, more for milder
 * ones, 256 (milder than any) with none. */
export function worst(flags: readonly RiskFlag[] | undefined): number {
  return Math.min(256, ...risks(flags).map((f) => f.severity));
}

/** Whether the hunk's file is one its job never read or searched. */
export function unread(flags: readonly RiskFlag[] | undefined): boolean {
  return (flags ?? []).some((f) => f.rule === "unread_file");
}

/** A hunk's risks in short ("⚑ dead link, outlier"), worst first, or `null`
 * when it has none. */
export function flagLabel(flags: readonly RiskFlag[] | undefined): string | null {
  const shown = risks(flags);
  return shown.length ? `⚑ ${shown.map((f) => RULE[f.rule]).join(", ")}` : null;
}
