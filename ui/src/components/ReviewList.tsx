// Every pending hunk across the project, grouped by file: click one to see it.

import { useMemo } from "preact/hooks";
import type { Hunk } from "../api/types";
import { openPath } from "../state/files";
import { currentHunk, job, reviewItems } from "../state/store";

export function ReviewList() {
  const items = reviewItems.value;
  // The job's bundle tells each hunk's size; hunks of other jobs show without it.
  const sizes = useMemo(() => {
    const map = new Map<string, Hunk>();
    for (const f of job.value?.diff_bundle?.files ?? []) for (const h of f.hunks) map.set(h.hunk_id, h);
    return map;
  }, [job.value?.diff_bundle]);
  const files = useMemo(() => {
    const groups: { path: string; hunks: string[] }[] = [];
    for (const item of items) {
      const last = groups[groups.length - 1];
      if (last?.path === item.path) last.hunks.push(item.hunk);
      else groups.push({ path: item.path, hunks: [item.hunk] });
    }
    return groups;
  }, [items]);
  const current = currentHunk.value;
  return (
    <section class="review" aria-label="Review" data-testid="review-list">
      <h2>
        Review <span class="count" data-testid="review-count">{items.length}</span>
      </h2>
      {items.length === 0 ? (
        <p class="empty">No pending changes.</p>
      ) : (
        <div class="review-body">
          {files.map((f) => (
            <div key={f.path} class="review-file">
              <div class="review-path" title={f.path}>
                {f.path}
              </div>
              {f.hunks.map((id) => {
                const h = sizes.get(id);
                return (
                  <button
                    key={id}
                    class={`review-item${id === current ? " active" : ""}`}
                    data-testid="review-item"
                    data-hunk-id={id}
                    data-path={f.path}
                    onClick={() => void openPath(f.path, id)}
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
          ))}
        </div>
      )}
    </section>
  );
}
