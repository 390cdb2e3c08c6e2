// The redline view's figures in the browser (printed, and written beside the
// UI's other figures in ui/e2e-artifacts/redline-figures.json; not timed
// assertions): a 5,000-line note with 200 changes read rendered, cold (its
// code loaded on first use), fresh (another such note, the code loaded, its
// text parsed for the first time) and warm (read rendered again: its parse
// kept); a decision from the keyboard until the
// view is redrawn; and a run of 1,000 notes read as one document, to its
// first screen and while it scrolls, beside the browser's own floor for
// scrolling the same notes.

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { api, artifacts, browser, serve, vault } from "./support.mjs";

const NOTES = 1000;
const BIG = 5000;
const CHANGED = 200;
// After the thousand notes in the run's order: the document's first screen
// is theirs (the big note's own figures are the view's, above).
const BIG_NOTE = "Zz/Big.md";
const BIG_TOO = "Zz/Big2.md";

let dir, server, chrome, page;
before(async () => {
  const files = {};
  for (let i = 0; i < NOTES; i++) files[`Notes/n${String(i).padStart(4, "0")}.md`] = `# Note ${i}\n\nAtlas met café ${i} and [[n${String((i + 1) % NOTES).padStart(4, "0")}]].\n\n- item one\n- item two\n`;
  // Two big notes with the same shape and other words: the second is read
  // with the view's code loaded and its text new to it.
  for (const [path, k] of [[BIG_NOTE, 7], [BIG_TOO, 11]]) {
    const big = [];
    for (let i = 0; i < BIG; i++) {
      if (i % 50 === 0) big.push(`## Section ${i / 50}`);
      else if (i % 25 === 3) big.push(`Line ${i} of the plan: Atlas ships, naïve ${i}.`);
      else if (i % 7 === 0) big.push("");
      else big.push(`Line ${i} of the plan, with some words: café ${i * k}.`);
    }
    files[path] = `${big.join("\n")}\n`;
  }
  dir = vault(files);
  server = await serve(dir, []);
  ({ browser: chrome, page } = await browser());
});
after(async () => {
  await chrome?.close();
  await server?.stop();
});

/** The frame times, sorted, of 240 frames scrolling the element at
 * `selector` by 400 px each. */
function scrolled(selector) {
  return page.evaluate(
    (selector) =>
      new Promise((resolve) => {
        const body = document.querySelector(selector);
        const times = [];
        let last = performance.now();
        const step = () => {
          const now = performance.now();
          times.push(now - last);
          last = now;
          body.scrollTop += 400;
          if (times.length < 240) requestAnimationFrame(step);
          else resolve(times.slice(1).sort((a, b) => a - b));
        };
        requestAnimationFrame(step);
      }),
    selector,
  );
}

/** Milliseconds, measured in the page, from the redline's toggle (its
 * button clicked, or Alt+R) until the frame that paints the note's first
 * struck word: the browser's own time, without the test driver's round
 * trips (timed from outside, the same renders read 70–100 ms slower). */
function redlineShown(trigger) {
  return page.evaluate(
    (trigger) =>
      new Promise((resolve) => {
        const start = performance.now();
        const marked = () => document.querySelector('[data-testid="redline"] .redline-note del.rl-del');
        const watch = new MutationObserver(() => {
          if (!marked()) return;
          watch.disconnect();
          requestAnimationFrame(() => setTimeout(() => resolve(Math.round(performance.now() - start)), 0));
        });
        watch.observe(document.body, { childList: true, subtree: true });
        if (trigger === "click") document.querySelector('[data-testid="redline-toggle"]').click();
        else window.dispatchEvent(new KeyboardEvent("keydown", { key: "r", code: "KeyR", altKey: true, bubbles: true }));
      }),
    trigger,
  );
}

/** Milliseconds from `act` until `done` (a locator) is visible and painted. */
async function timed(act, done) {
  const start = Date.now();
  await act();
  await done.waitFor({ timeout: 60_000 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
  return Date.now() - start;
}

test(`the redline of a ${BIG.toLocaleString()}-line note with ${CHANGED} changes, and a run of ${NOTES.toLocaleString()} notes read as one document`, { timeout: 10 * 60_000 }, async () => {
  await page.goto(server.url);
  const scope = { folders: [], glob: null, containing: null, property: null, files: [] };
  const op = { op: "replace_text", find: "Atlas", replace: "Meridian", regex: false, whole_word: true, case_sensitive: true, scope, include: [] };
  const job = await api(server, "/api/operations", "POST", { operations: [op] });
  assert.equal(job.status, "awaiting_review");
  await page.getByTestId("review-count").filter({ hasText: String(NOTES + 2 * CHANGED) }).waitFor({ timeout: 60_000 });

  // The big notes, read rendered: cold (the view's code loads), fresh (the
  // second, its text new), then warm (the second again).
  const open = async (path) => {
    await page.keyboard.press("Control+KeyP");
    await page.keyboard.type(path.split("/").pop());
    await page.locator(`[data-testid="quick-open-item"][data-path="${path}"]`).waitFor();
    await page.keyboard.press("Enter");
    await page.getByTestId("quick-open").waitFor({ state: "detached" });
    await page.getByTestId("open-path").filter({ hasText: path }).waitFor();
    await page.locator(".cm-content").waitFor();
  };
  const marks = page.locator('[data-testid="redline"] .redline-note del.rl-del');
  const changes = () => page.locator('[data-testid="redline"] .redline-note [data-hunk]').evaluateAll((els) => new Set(els.map((e) => e.dataset.hunk)).size);
  await open(BIG_NOTE);
  const cold = await redlineShown("click");
  assert.equal(await changes(), CHANGED);
  await page.keyboard.press("Alt+KeyR");
  await page.getByTestId("redline").waitFor({ state: "detached" });
  await open(BIG_TOO);
  const fresh = await redlineShown("key");
  assert.equal(await changes(), CHANGED);
  // Its blocks are drawn in chunks, every one of them in one.
  const chunks = await page.locator('[data-testid="redline"] .redline-note').evaluate((a) => [a.children.length, a.querySelectorAll(":scope > .rl-chunk").length, a.querySelectorAll(":scope > .rl-chunk > *").length]);
  assert.ok(chunks[0] > 10 && chunks[0] === chunks[1] && chunks[2] > 32 * (chunks[1] - 1), `chunks: ${chunks}`);
  await page.keyboard.press("Alt+KeyR");
  await page.getByTestId("redline").waitFor({ state: "detached" });
  const warm = await redlineShown("key");

  // A decision from the keyboard until the view shows it (the engine's answer, then the redraw).
  await marks.first().click();
  const decided = await page.evaluate(
    () =>
      new Promise((resolve) => {
        const note = document.querySelector('[data-testid="redline"] .redline-note');
        const before = note.querySelectorAll("[data-hunk]").length;
        const start = performance.now();
        const watch = new MutationObserver(() => {
          if (document.querySelector('[data-testid="redline"] .redline-note').querySelectorAll("[data-hunk]").length < before) {
            watch.disconnect();
            requestAnimationFrame(() => resolve(performance.now() - start));
          }
        });
        watch.observe(document.querySelector('[data-testid="redline"]'), { childList: true, subtree: true });
        window.dispatchEvent(new KeyboardEvent("keydown", { key: "y", code: "KeyY", altKey: true, bubbles: true }));
      }),
  );

  // The engine's answer drawn (the note again, with one change fewer)
  // before the next figure starts.
  await page.getByTestId("file-pending").filter({ hasText: `${CHANGED - 1} pending` }).waitFor();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  // Two more at once, the second before the hidden editor took the first
  // in: each key decides its own change.
  await page.evaluate(() => {
    for (let i = 0; i < 2; i++) window.dispatchEvent(new KeyboardEvent("keydown", { key: "y", code: "KeyY", altKey: true, bubbles: true }));
  });
  await page.getByTestId("file-pending").filter({ hasText: `${CHANGED - 3} pending` }).waitFor();
  const accepted = (await api(server, `/api/files/content?path=${encodeURIComponent(BIG_TOO)}`)).hunks.filter((h) => h.status === "accepted");
  assert.equal(accepted.length, 3, "three keys, three changes accepted");
  assert.equal((await page.locator('[data-testid="redline"] .redline-note').textContent()).includes("Atlas ships, naïve 3."), false, "the first change reads decided");
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

  // The run as one document: its first screen, then frames while it scrolls.
  await page.keyboard.press("Escape");
  const firstNote = page.locator('[data-testid="run-note"] article.redline-note').first();
  const firstScreen = await timed(() => page.keyboard.press("Alt+Shift+KeyR"), firstNote);
  assert.equal(await page.getByTestId("run-document-count").innerText(), `· ${(NOTES + 2).toLocaleString()} note(s) with changes`);
  // Only the notes near the screen are in the page.
  const mounted = await page.getByTestId("run-note").count();
  assert.ok(mounted > 0 && mounted < 50, `${mounted} notes in the page`);
  const frames = await scrolled(".run-document-body");
  // Where it scrolled to, notes are drawn.
  await page.locator('[data-testid="run-note"] article.redline-note').last().waitFor();
  const path = await page.getByTestId("run-note").first().getAttribute("data-path");
  assert.ok(path > "Notes/n0100.md", `scrolled on to ${path}`);
  // The browser's own floor beside it (the peer figure): the notes drawn
  // above copied a thousand times into a static document that the browser
  // itself keeps off screen (content-visibility), no script running as it
  // scrolls. Last, as it takes the page's document over.
  await page.evaluate(() => {
    const drawn = [...document.querySelectorAll(".run-note")].filter((n) => n.querySelector("article.redline-note")).map((n) => n.outerHTML);
    const floor = Object.assign(document.createElement("div"), { className: "run-document-body scroll-floor" });
    floor.innerHTML = Array.from({ length: 1000 }, (_, k) => drawn[k % drawn.length]).join("");
    for (const note of floor.children) note.style.cssText = "content-visibility: auto; contain-intrinsic-size: auto 150px";
    document.querySelector(".run-document-body").replaceWith(floor);
  });
  await page.evaluate(() => new Promise((r) => setTimeout(r, 500)));
  const floor = await scrolled(".scroll-floor");
  const at = (sorted, q) => Math.round(sorted[Math.floor(sorted.length * q)] * 10) / 10;
  const figures = {
    cold_ms: cold,
    fresh_ms: fresh,
    warm_ms: warm,
    decision_ms: Math.round(decided),
    document_first_screen_ms: firstScreen,
    scroll_frame_p50_ms: at(frames, 0.5),
    scroll_frame_p95_ms: at(frames, 0.95),
    floor_scroll_frame_p50_ms: at(floor, 0.5),
    floor_scroll_frame_p95_ms: at(floor, 0.95),
  };
  console.log(`redline figures: ${JSON.stringify(figures)}`);
  writeFileSync(join(artifacts, "redline-figures.json"), `${JSON.stringify(figures, null, 2)}\n`);
});
