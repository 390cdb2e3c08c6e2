// The window's check of itself, asked for with `check` in its address (the
// soak test asks for it): once a listing of the engine is taken in and
// drawn, the page must show what that listing said — the review's count,
// and each file row's pending badge. A difference is a view that does not
// follow the store, reported as a console error a test fails on.

/** Whether the check was asked for. */
const asked = typeof location !== "undefined" && new URLSearchParams(location.search).has("check");

/** What a listing said: the pending hunks in all, and each file's. */
export interface Listed {
  total: number;
  files: ReadonlyMap<string, number>;
}

/** Checks, once the page has drawn, that it shows `listed`, unless
 * `current` says something newer came meanwhile (a listing, an answer, a
 * decision still settling), which the page shows instead. */
export function checkDrawn(listed: Listed, current: () => boolean) {
  if (!asked) return;
  requestAnimationFrame(() =>
    setTimeout(() => {
      if (!current()) return;
      const wrong = difference(listed);
      if (wrong) console.error(`Redline check: ${wrong}`);
    }, 0),
  );
}

/** How the page differs from `listed`, or null. */
function difference(listed: Listed): string | null {
  const count = document.querySelector('[data-testid="review-count"]')?.textContent;
  if (count !== undefined && count !== null && Number(count) !== listed.total) return `the review count shows ${count}, the engine listed ${listed.total} pending`;
  for (const row of document.querySelectorAll<HTMLElement>('[data-testid="tree-file"]')) {
    const path = row.dataset.path ?? "";
    const badge = Number(row.querySelector('[data-testid="pending-badge"]')?.textContent ?? 0);
    const want = listed.files.get(path) ?? 0;
    if (badge !== want) return `${path} shows ${badge} pending, the engine listed ${want}`;
  }
  return null;
}
