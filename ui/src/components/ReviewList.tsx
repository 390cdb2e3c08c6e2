// Every pending hunk across the project, grouped by the job that proposed it
// (its instruction as the heading), then by file, each hunk with a preview of
// its change: click one to see it. Built for thousands of hunks: the list is
// one flat run of fixed-height rows and only those in view are in the page;
// the current hunk is marked without re-rendering the list.

import { effect } from "@preact/signals";
import { memo } from "preact/compat";
import { useEffect, useMemo } from "preact/hooks";
import type { PendingHunk } from "../api/types";
import { openPath } from "../state/files";
import { currentHunk, hunkInfo, reviewItems, reviewJobs } from "../state/store";
import { useVisibleRows } from "./visibleRows";

/** A row's height in pixels (`.review-row` in styles.css). */
const ROW = 22;

type Row = { kind: "job"; key: string; instruction: string; source: string | null } | { kind: "file"; path: string } | { kind: "hunk"; id: string; path: string };

export function ReviewList() {
  const items = reviewItems.value;
  const info = hunkInfo.value;
  const rows = useMemo(() => flatten(items, info, reviewJobs.value), [items, info, reviewJobs.value]);
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
            {rows.slice(view.first, view.last).map((r) =>
              r.kind === "job" ? (
                <div key={`j:${r.key}`} class="review-row review-instruction" title={r.instruction} data-testid="review-instruction" data-job-id={r.key}>
                  {r.source && (
                    <span class="review-source" title={`Proposed over MCP by ${r.source}`} data-testid="review-source">
                      {r.source}
                    </span>
                  )}
                  {r.instruction}
                </div>
              ) : r.kind === "file" ? (
                <div key={`f:${r.path}`} class="review-row review-path" title={r.path}>
                  {r.path}
                </div>
              ) : (
                <ReviewItem key={r.id} id={r.id} path={r.path} hunk={info.get(r.id)} />
              ),
            )}
          </div>
        </div>
      </div>
    </section>
  );
}

/** The list's rows: each job's heading, then each of its files with its hunks. */
function flatten(items: { path: string; hunk: string }[], info: ReadonlyMap<string, PendingHunk>, jobs: { job_id?: string | null; instruction: string; source?: string | null }[]): Row[] {
  const byJob = new Map<string, Map<string, string[]>>();
  for (const item of items) {
    const job = info.get(item.hunk)?.job_id ?? "";
    let files = byJob.get(job);
    if (!files) byJob.set(job, (files = new Map()));
    const ids = files.get(item.path);
    if (ids) ids.push(item.hunk);
    else files.set(item.path, [item.hunk]);
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
    rows.push({ kind: "job", key, instruction: job?.instruction ?? "Other changes", source: job?.source ?? null });
    for (const [path, ids] of byJob.get(key)!) {
      rows.push({ kind: "file", path });
      for (const id of ids) rows.push({ kind: "hunk", id, path });
    }
  }
  return rows;
}

const ReviewItem = memo(function ReviewItem({ id, path, hunk }: { id: string; path: string; hunk: PendingHunk | undefined }) {
  return (
    <button
      class={`review-row review-item${id === currentHunk.peek() ? " active" : ""}`}
      data-testid="review-item"
      data-hunk-id={id}
      data-path={path}
      title={id}
      onClick={() => void openPath(path, id)}
    >
      {hunk ? (
        <span class="preview" data-testid="hunk-preview">
          <span class="line">{hunk.line}</span>
          <span class="ctx">{hunk.preview.before}</span>
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
