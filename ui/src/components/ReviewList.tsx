// Every pending hunk across the project, grouped by the job that proposed it
// (its instruction as the heading). Within a job, what deserves a look comes
// first: the hunks the engine flagged, each with its reason; then the job's
// patterns (the same change across many notes), each decided in one action
// and opened to browse its occurrences; then every other hunk, by file. Click
// a hunk to see it. Built for tens of thousands of hunks: the list is one
// flat run of fixed-height rows and only those in view are in the page; the
// current hunk is marked without re-rendering the list.

import { effect, signal } from "@preact/signals";
import { memo } from "preact/compat";
import { useEffect, useMemo } from "preact/hooks";
import type { PatternGroup, PendingHunk } from "../api/types";
import { flagLabel, risks, unread, worst } from "../flags";
import { openPath } from "../state/navigation";
import { decideMany, patternLabel } from "../state/review";
import { currentHunk, hunkInfo, reviewItems, reviewJobs } from "../state/store";
import { useVisibleRows } from "./visibleRows";

/** A row's height in pixels (`.review-row` in styles.css). */
const ROW = 26;
/** Occurrences of a closed pattern shown under it. */
const EXAMPLES = 3;

/** The patterns opened to all their occurrences, by `job:pattern`. */
const opened = signal<ReadonlySet<string>>(new Set());

type Job = (typeof reviewJobs.value)[number];
type Row =
  | { kind: "job"; key: string; job: Job | undefined; flagged: number }
  | { kind: "section"; key: string; label: string }
  | { kind: "unread"; key: string; hunks: number }
  | { kind: "pattern"; key: string; job: string; group: PatternGroup; open: boolean; flagged: number }
  | { kind: "pattern-actions"; key: string; job: string; group: PatternGroup; flagged: number }
  | { kind: "job-actions"; key: string; instruction: string; unflagged: number }
  | { kind: "more"; key: string; hidden: number }
  | { kind: "file"; path: string }
  | { kind: "hunk"; id: string; path: string; indent?: boolean };

export function ReviewList() {
  const items = reviewItems.value;
  const info = hunkInfo.value;
  const rows = useMemo(() => flatten(items, info, reviewJobs.value, opened.value), [items, info, reviewJobs.value, opened.value]);
  const view = useVisibleRows(rows.length, ROW);
  // Where each hunk's row is, for bringing the current one into view.
  const at = useMemo(() => new Map(rows.flatMap((r, i) => (r.kind === "hunk" ? [[r.id, i] as const] : []))), [rows]);
  useEffect(
    () =>
      effect(() => {
        const id = currentHunk.value;
        const list = view.body.current;
        if (!list) return;
        list.querySelector(".review-item.active")?.classList.remove("active");
        const i = id ? at.get(id) : undefined;
        if (i === undefined) return;
        view.reveal(i, 1 / 3);
        list.querySelector(`[data-hunk-id="${CSS.escape(id!)}"]`)?.classList.add("active");
      }),
    [at],
  );
  return (
    <section class="review" aria-label="Review" data-testid="review-list">
      <h2>
        Review <span class="count" data-testid="review-count">{items.length}</span>
      </h2>
      {items.length === 0 && <p class="empty">No pending changes.</p>}
      <div class="review-body" ref={view.body} onScroll={view.onScroll}>
        <div style={view.spacer}>
          <div style={view.shift}>
            {rows.slice(view.first, view.last).map((r) => {
              switch (r.kind) {
                case "job":
                  return <JobRow key={`j:${r.key}`} row={r} />;
                case "unread":
                  return (
                    <div key={`u:${r.key}`} class="review-row review-unread muted" data-testid="unread-note" title="The job changed these files without reading them or finding them by searching: each is in the list below">
                      ⚑ {r.hunks.toLocaleString()} hunk{r.hunks === 1 ? "" : "s"} in files the job never read
                    </div>
                  );
                case "section":
                  return (
                    <div key={`s:${r.key}`} class="review-row review-section" data-testid="review-section">
                      {r.label}
                    </div>
                  );
                case "pattern":
                  return <PatternRow key={`p:${r.key}`} row={r} />;
                case "pattern-actions":
                  return <PatternActions key={`pa:${r.key}`} row={r} />;
                case "job-actions":
                  return (
                    <div key={`ja:${r.key}`} class="review-row review-actions">
                      <button
                        class="mini"
                        data-testid="accept-unflagged"
                        title="Accept every hunk of this job that no rule flagged, as one step (undo brings them all back)"
                        onClick={() => void decideMany({ kind: "unflagged", job_id: r.key }, "accepted", `every unflagged hunk of “${r.instruction}”`)}
                      >
                        Accept {r.unflagged.toLocaleString()} unflagged
                      </button>
                    </div>
                  );
                case "more":
                  return (
                    <button key={`m:${r.key}`} class="review-row review-more" onClick={() => toggle(r.key)} data-testid="pattern-more">
                      … {r.hidden.toLocaleString()} more: show all
                    </button>
                  );
                case "file":
                  return (
                    <div key={`f:${r.path}`} class="review-row review-path" title={r.path}>
                      {r.path}
                    </div>
                  );
                case "hunk":
                  return <ReviewItem key={r.id} id={r.id} path={r.path} hunk={info.get(r.id)} indent={r.indent} />;
              }
            })}
          </div>
        </div>
      </div>
    </section>
  );
}

/** The list's rows: each job's heading, its flagged hunks, its patterns
 * (their first occurrences, or all of an opened one), then its other hunks
 * by file. Each hunk has one row at most. */
function flatten(items: { path: string; hunk: string }[], info: ReadonlyMap<string, PendingHunk>, jobs: Job[], open: ReadonlySet<string>): Row[] {
  type Item = { path: string; hunk: string };
  type Bucket = { flagged: Item[]; moves: Item[]; patterns: Map<string, Item[]>; files: Map<string, string[]>; count: number; unread: number };
  // The link updates that follow a move are listed under it.
  const following = new Map<string, Item[]>();
  for (const h of info.values()) for (const f of h.followers ?? []) following.set(f, []);
  const byJob = new Map<string, Bucket>();
  // A flag every hunk of a pattern has is the pattern's (said once, on its row).
  const unreadPatterns = new Set(jobs.flatMap((j) => j.patterns.filter((g) => unread(g.pattern.flags)).map((g) => `${j.job_id ?? ""}:${g.pattern.pattern_id}`)));
  for (const item of items) {
    const h = info.get(item.hunk);
    const job = h?.job_id ?? "";
    let b = byJob.get(job);
    if (!b) byJob.set(job, (b = { flagged: [], moves: [], patterns: new Map(), files: new Map(), count: 0, unread: 0 }));
    b.count++;
    if (unread(h?.flags) || (h?.pattern && unreadPatterns.has(`${job}:${h.pattern}`))) b.unread++;
    if (h?.op) b.moves.push(item);
    else if (following.has(item.hunk)) following.get(item.hunk)!.push(item);
    else if (risks(h?.flags).length) b.flagged.push(item);
    else if (h?.pattern) {
      const list = b.patterns.get(h.pattern);
      if (list) list.push(item);
      else b.patterns.set(h.pattern, [item]);
    } else {
      const ids = b.files.get(item.path);
      if (ids) ids.push(item.hunk);
      else b.files.set(item.path, [item.hunk]);
    }
  }
  const order = jobs.map((j) => j.job_id ?? "");
  const heading = new Map(jobs.map((j) => [j.job_id ?? "", j]));
  const rank = (job: string) => {
    const i = order.indexOf(job);
    return i < 0 ? order.length : i;
  };
  const rows: Row[] = [];
  for (const key of [...byJob.keys()].sort((a, b) => rank(a) - rank(b))) {
    const job = heading.get(key);
    const b = byJob.get(key)!;
    rows.push({ kind: "job", key, job, flagged: b.flagged.length });
    // One line for every hunk in a file the job never read: worth knowing,
    // and no reason to bury a dead link under them.
    if (b.unread > 0) rows.push({ kind: "unread", key, hunks: b.unread });
    // The worst first, in the order they came within one severity.
    b.flagged.sort((x, y) => worst(info.get(x.hunk)?.flags) - worst(info.get(y.hunk)?.flags));
    if (key && b.flagged.length > 0 && b.count > b.flagged.length) rows.push({ kind: "job-actions", key, instruction: job?.instruction ?? "", unflagged: b.count - b.flagged.length });
    if (b.flagged.length > 0) {
      rows.push({ kind: "section", key: `${key}:flagged`, label: `Flagged · ${b.flagged.length.toLocaleString()}` });
      for (const f of b.flagged) rows.push({ kind: "hunk", id: f.hunk, path: f.path });
    }
    if (b.moves.length > 0) {
      rows.push({ kind: "section", key: `${key}:moves`, label: `Moves and deletions · ${b.moves.length.toLocaleString()}` });
      for (const m of b.moves) {
        rows.push({ kind: "hunk", id: m.hunk, path: m.path });
        for (const id of info.get(m.hunk)?.followers ?? []) for (const f of following.get(id) ?? []) rows.push({ kind: "hunk", id: f.hunk, path: f.path, indent: true });
      }
    }
    const groups = (job?.patterns ?? []).filter((g) => b.patterns.has(g.pattern.pattern_id));
    if (groups.length > 0) rows.push({ kind: "section", key: `${key}:patterns`, label: `Patterns · ${groups.length}` });
    for (const group of groups) {
      const id = group.pattern.pattern_id;
      const shown = b.patterns.get(id)!;
      const whole = `${key}:${id}`;
      const isOpen = open.has(whole);
      rows.push({ kind: "pattern", key: whole, job: key, group, open: isOpen, flagged: group.pending - shown.length });
      rows.push({ kind: "pattern-actions", key: whole, job: key, group, flagged: group.pending - shown.length });
      const list = isOpen ? shown : shown.slice(0, EXAMPLES);
      for (const o of list) rows.push({ kind: "hunk", id: o.hunk, path: o.path, indent: true });
      if (!isOpen && shown.length > EXAMPLES) rows.push({ kind: "more", key: whole, hidden: shown.length - EXAMPLES });
    }
    if (b.files.size > 0 && (groups.length > 0 || b.flagged.length > 0)) rows.push({ kind: "section", key: `${key}:other`, label: "Other changes" });
    for (const [path, ids] of b.files) {
      rows.push({ kind: "file", path });
      for (const id of ids) rows.push({ kind: "hunk", id, path });
    }
    // Hunks of a pattern the job's listing does not know yet (a refresh away).
    for (const [id, list] of b.patterns) {
      if (groups.some((g) => g.pattern.pattern_id === id)) continue;
      for (const o of list) rows.push({ kind: "hunk", id: o.hunk, path: o.path });
    }
  }
  return rows;
}

function toggle(key: string) {
  const next = new Set(opened.value);
  if (!next.delete(key)) next.add(key);
  opened.value = next;
}

function JobRow({ row }: { row: Extract<Row, { kind: "job" }> }) {
  const instruction = row.job?.instruction ?? "Other changes";
  const source = row.job?.source;
  return (
    <div class="review-row review-instruction" title={instruction} data-testid="review-instruction" data-job-id={row.key}>
      {source && (
        <span class="review-source" title={`Proposed by ${source}`} data-testid="review-source">
          {source}
        </span>
      )}
      <span class="review-title" data-testid="review-title">
        {instruction}
      </span>
      {row.flagged > 0 && (
        <span class="flag-count" title={`${row.flagged} hunks deserve a look`} data-testid="flag-count">
          ⚑ {row.flagged.toLocaleString()}
        </span>
      )}
    </div>
  );
}

function PatternRow({ row }: { row: Extract<Row, { kind: "pattern" }> }) {
  const p = row.group.pattern;
  return (
    <button
      class="review-row review-pattern"
      aria-expanded={row.open}
      onClick={() => toggle(row.key)}
      title={`${patternLabel(p)}: ${row.open ? "show only the first occurrences" : "show every occurrence"}`}
      data-testid="review-pattern"
      elementtiming="review-row"
      data-pattern-id={p.pattern_id}
    >
      {row.open ? "▾" : "▸"} {p.removed && <del>{p.removed}</del>}
      {p.removed && p.inserted && " → "}
      {p.inserted && <ins>{p.inserted}</ins>}
      {/* A risk every occurrence has, said once. */}
      {p.flags?.length ? (
        <span class="flag" data-testid="pattern-flag" title={p.flags.map((f) => f.reason).join("\n")}>
          {" "}
          {flagLabel(p.flags)}
        </span>
      ) : null}
    </button>
  );
}

function PatternActions({ row }: { row: Extract<Row, { kind: "pattern-actions" }> }) {
  const p = row.group.pattern;
  const label = patternLabel(p);
  const selection = { kind: "pattern" as const, job_id: row.job, pattern_id: p.pattern_id };
  return (
    <div class="review-row review-actions" data-pattern-id={p.pattern_id}>
      <span class="stat" data-testid="pattern-count">
        {row.group.pending.toLocaleString()} hunks in {row.group.pending_files.toLocaleString()} files{row.flagged > 0 ? ` (${row.flagged} flagged, above)` : ""}
      </span>
      <button class="mini" data-testid="pattern-accept" title="Accept every hunk of this pattern, as one step (Alt+Shift+Y on one of them)" onClick={() => void decideMany(selection, "accepted", label)}>
        Accept
      </button>
      <button class="mini" data-testid="pattern-reject" title="Reject every hunk of this pattern, as one step (Alt+Shift+X on one of them)" onClick={() => void decideMany(selection, "rejected", label)}>
        Reject
      </button>
    </div>
  );
}


/** Characters of the text before a change a row shows: a row is narrow,
 * and the change, not the line's start, is what it is for. */
const LEAD = 12;

/** A hunk's change in full, for its row's tooltip: a row is cut to its
 * width, and the whole line is one hover away. */
function whole(hunk: PendingHunk) {
  const p = hunk.preview;
  if (!p.removed && !p.added) return "";
  return `${p.before}${p.removed ? `[-${p.removed}-]` : ""}${p.added ? `{+${p.added}+}` : ""}${p.after}`;
}

/** The end of the text before a change, as much as a row shows. */
function lead(before: string) {
  return before.length > LEAD ? `…${before.slice(-LEAD)}` : before;
}

const ReviewItem = memo(function ReviewItem({ id, path, hunk, indent }: { id: string; path: string; hunk: PendingHunk | undefined; indent?: boolean }) {
  const flags = risks(hunk?.flags);
  return (
    <button
      class={`review-row review-item${indent ? " occurrence" : ""}${id === currentHunk.peek() ? " active" : ""}`}
      data-testid="review-item"
      elementtiming="review-row"
      data-hunk-id={id}
      data-path={path}
      data-flagged={flags.length > 0 || undefined}
      title={[hunk ? `${path}:${hunk.line}` : path, hunk && whole(hunk), ...flags.map((f) => f.reason)].filter(Boolean).join("\n")}
      onClick={() => void openPath(hunk?.op?.kind === "move" ? hunk.op.to : path, id)}
    >
      {flags.length > 0 && (
        <span class="flag" data-testid="hunk-flag">
          {flagLabel(flags)}
        </span>
      )}
      {(indent || flags.length > 0) && <span class="where">{path.split("/").pop()}</span>}
      {hunk ? (
        <span class="preview" data-testid="hunk-preview">
          <span class="line">{hunk.op ? (hunk.op.kind === "move" ? "move" : "delete") : hunk.line}</span>
          <span class="ctx">{lead(hunk.preview.before)}</span>
          {hunk.preview.removed && <del>{hunk.preview.removed}</del>}
          {hunk.preview.added && <ins>{hunk.preview.added}</ins>}
          <span class="ctx">{hunk.preview.after}</span>
        </span>
      ) : (
        <span>{id}</span>
      )}
    </button>
  );
});
