// Every pending hunk across the project, grouped by the job that proposed it
// (its instruction as the heading), then by file, each hunk with a preview of
// its change: click one to see it. Built for a thousand hunks: each file's
// group re-renders only when its own hunks change, and the current hunk is
// marked without re-rendering the list.

import { effect } from "@preact/signals";
import { memo } from "preact/compat";
import { useEffect, useMemo, useRef } from "preact/hooks";
import type { PendingHunk } from "../api/types";
import { openPath } from "../state/files";
import { currentHunk, hunkInfo, reviewItems, reviewJobs } from "../state/store";

interface Group {
  key: string;
  instruction: string;
  files: { path: string; hunks: string }[];
}

export function ReviewList() {
  const items = reviewItems.value;
  const info = hunkInfo.value;
  const body = useRef<HTMLDivElement>(null);
  const groups = useMemo(() => {
    const byJob = new Map<string, Map<string, string[]>>();
    for (const item of items) {
      const job = info.get(item.hunk)?.job_id ?? "";
      let files = byJob.get(job);
      if (!files) byJob.set(job, (files = new Map()));
      const ids = files.get(item.path);
      if (ids) ids.push(item.hunk);
      else files.set(item.path, [item.hunk]);
    }
    const order = reviewJobs.value.map((j) => j.job_id ?? "");
    const heading = new Map(reviewJobs.value.map((j) => [j.job_id ?? "", j.instruction]));
    const keys = [...byJob.keys()].sort((a, b) => rank(order, a) - rank(order, b));
    return keys.map(
      (key): Group => ({
        key,
        instruction: heading.get(key) ?? "Other changes",
        files: [...byJob.get(key)!].map(([path, ids]) => ({ path, hunks: ids.join(" ") })),
      }),
    );
  }, [items, info, reviewJobs.value]);
  useEffect(
    () =>
      effect(() => {
        const id = currentHunk.value;
        const list = body.current;
        if (!list) return;
        list.querySelector(".review-item.active")?.classList.remove("active");
        const item = id ? list.querySelector<HTMLElement>(`[data-hunk-id="${CSS.escape(id)}"]`) : null;
        item?.classList.add("active");
        item?.scrollIntoView({ block: "nearest" });
      }),
    [],
  );
  return (
    <section class="review" aria-label="Review" data-testid="review-list">
      <h2>
        Review <span class="count" data-testid="review-count">{items.length}</span>
      </h2>
      {items.length === 0 && <p class="empty">No pending changes.</p>}
      <div class="review-body" ref={body}>
        {groups.map((g) => (
          <div key={g.key} class="review-job" data-testid="review-job" data-job-id={g.key}>
            <div class="review-instruction" title={g.instruction} data-testid="review-instruction">
              {g.instruction}
            </div>
            {g.files.map((f) => (
              <ReviewFile key={f.path} path={f.path} hunks={f.hunks} info={info} />
            ))}
          </div>
        ))}
      </div>
    </section>
  );
}

/** A job's place in the engine's order; jobs it does not know yet come last. */
function rank(order: string[], job: string) {
  const i = order.indexOf(job);
  return i < 0 ? order.length : i;
}

const ReviewFile = memo(function ReviewFile({ path, hunks, info }: { path: string; hunks: string; info: ReadonlyMap<string, PendingHunk> }) {
  return (
    <div class="review-file">
      <div class="review-path" title={path}>
        {path}
      </div>
      {hunks.split(" ").map((id) => {
        const h = info.get(id);
        return (
          <button
            key={id}
            class={`review-item${id === currentHunk.peek() ? " active" : ""}`}
            data-testid="review-item"
            data-hunk-id={id}
            data-path={path}
            title={id}
            onClick={() => void openPath(path, id)}
          >
            {h ? (
              <span class="preview" data-testid="hunk-preview">
                <span class="line">{h.line}</span>
                <span class="ctx">{h.preview.before}</span>
                {h.preview.removed && <del>{h.preview.removed}</del>}
                {h.preview.added && <ins>{h.preview.added}</ins>}
                <span class="ctx">{h.preview.after}</span>
              </span>
            ) : (
              <span>{id}</span>
            )}
          </button>
        );
      })}
    </div>
  );
});
