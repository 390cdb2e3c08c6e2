// Every pending hunk across the project, grouped by file: click one to see it.
// Built for a thousand hunks: each file's group re-renders only when its own
// hunks change, and the current hunk is marked without re-rendering the list.

import { effect } from "@preact/signals";
import { memo } from "preact/compat";
import { useEffect, useMemo, useRef } from "preact/hooks";
import type { Hunk } from "../api/types";
import { openPath } from "../state/files";
import { currentHunk, job, reviewItems } from "../state/store";

export function ReviewList() {
  const items = reviewItems.value;
  const body = useRef<HTMLDivElement>(null);
  // The job's bundle tells each hunk's size; hunks of other jobs show without it.
  const sizes = useMemo(() => {
    const map = new Map<string, Hunk>();
    for (const f of job.value?.diff_bundle?.files ?? []) for (const h of f.hunks) map.set(h.hunk_id, h);
    return map;
  }, [job.value?.diff_bundle]);
  const files = useMemo(() => {
    const byFile = new Map<string, string[]>();
    for (const item of items) {
      const ids = byFile.get(item.path);
      if (ids) ids.push(item.hunk);
      else byFile.set(item.path, [item.hunk]);
    }
    return [...byFile].map(([path, ids]) => ({ path, hunks: ids.join(" ") }));
  }, [items]);
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
        {files.map((f) => (
          <ReviewFile key={f.path} path={f.path} hunks={f.hunks} sizes={sizes} />
        ))}
      </div>
    </section>
  );
}

const ReviewFile = memo(function ReviewFile({ path, hunks, sizes }: { path: string; hunks: string; sizes: Map<string, Hunk> }) {
  return (
    <div class="review-file">
      <div class="review-path" title={path}>
        {path}
      </div>
      {hunks.split(" ").map((id) => {
        const h = sizes.get(id);
        return (
          <button
            key={id}
            class={`review-item${id === currentHunk.peek() ? " active" : ""}`}
            data-testid="review-item"
            data-hunk-id={id}
            data-path={path}
            onClick={() => void openPath(path, id)}
          >
            <span>{id}</span>
            {h && (
              <span class="stat">
                line {h.new_start + 1} <span class="plus">+{h.new_lines}</span> <span class="minus">−{h.old_lines}</span>
              </span>
            )}
          </button>
        );
      })}
    </div>
  );
});
