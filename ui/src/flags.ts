// The engine's risk flags, in the words the window shows them in: the review
// list's rows and the hunks' boxes in the editor say the same.

import type { RiskFlag } from "./api/types";

/** A flag's rule, short (its reason is said in full where there is room),
 * listed from the most severe, as the engine declares them
 * (`hunks::triage::flags::Rule`). */
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

const ORDER = Object.keys(RULE);

/** Rules worth knowing that are no risk on their own: said once per run,
 * never as a flagged row of their own. */
const MINOR: ReadonlySet<RiskFlag["rule"]> = new Set(["unread_file"]);

/** The flags that make a hunk one to look at first, the worst first. */
export function risks(flags: readonly RiskFlag[] | undefined): RiskFlag[] {
  return (flags ?? []).filter((f) => !MINOR.has(f.rule)).sort((a, b) => ORDER.indexOf(a.rule) - ORDER.indexOf(b.rule));
}

/** How severe a hunk's worst risk is: 0 for the worst rule, more for milder
 * ones, `ORDER.length` with none. */
export function worst(flags: readonly RiskFlag[] | undefined): number {
  return Math.min(ORDER.length, ...risks(flags).map((f) => ORDER.indexOf(f.rule)));
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
