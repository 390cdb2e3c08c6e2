// Decisions made faster than the engine answers them: each is shown at once,
// and an answer that left the engine before a later decision was taken never
// brings that later decision's hunk back as pending, in the editor or in the
// review list. The engine's answers are held back here so that the window in
// which an old answer lands, while a newer decision is on its way, is wide.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { api, browser, call, disk, replaceLine, serve, shot, vault } from "./support.mjs";

const LINES = 16;
const EDITED = [3, 7, 11, 15];
const TEXT = Array.from({ length: LINES }, (_, i) => `line ${i + 1}: old`).join("\n") + "\n";
const HELD_MS = 400;

let dir, server, chrome, page;
before(async () => {
  dir = vault({ "n.md": TEXT });
  const edits = EDITED.map((n) => replaceLine("n.md", n, `line ${n}: old`, `line ${n}: NEW`));
  server = await serve(dir, [call("propose_edits", { edits, summary: "New lines." })]);
  ({ browser: chrome, page } = await browser());
});
after(async () => {
  await chrome?.close();
  await server?.stop();
});

test("an engine answer older than a decision never brings its hunk back", async () => {
  await page.goto(server.url);
  await page.getByTestId("instruction").fill("Make the lines new");
  await page.getByTestId("run").click();
  await page.getByTestId("review-count").filter({ hasText: String(EDITED.length) }).waitFor();
  await page.getByTestId("review-item").first().click();
  await page.locator(".cm-hunk-current").waitFor();

  // Every decision reaches the engine at once; its answer comes back late.
  const answered = [];
  await page.route("**/api/agent/hunks/*/decide", async (route) => {
    const response = await route.fetch();
    await new Promise((r) => setTimeout(r, HELD_MS));
    answered.push(Date.now());
    await route.fulfill({ response });
  });
  // What the page shows, sampled on a timer from the first press until every
  // answer is in: pending hunks in the editor, and the review list's count.
  await page.evaluate(() => {
    window.__shown = [];
    window.__sampler = setInterval(() => {
      const count = Number(document.querySelector('[data-testid="review-count"]')?.textContent ?? NaN);
      window.__shown.push([document.querySelectorAll(".cm-editor .cm-hunk").length, count]);
    }, 10);
  });
  const presses = EDITED.length - 1;
  for (let i = 0; i < presses; i++) await page.keyboard.press("Alt+KeyY");
  await page.getByTestId("review-count").filter({ hasText: /^1$/ }).waitFor();
  // The decisions go one after another: the last answer lands about
  // `presses` holds after the first press.
  while (answered.length < presses) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 100));
  const shown = await page.evaluate(() => {
    clearInterval(window.__sampler);
    return window.__shown;
  });
  await shot(page, "decisions-1-answers-late");

  // Never more pending than the decisions left, and shown long before the
  // last answer.
  for (let i = 1; i < shown.length; i++) {
    const [[hunks, count], [before, counted]] = [shown[i], shown[i - 1]];
    assert.ok(hunks <= before && count <= counted, `a decided hunk came back at sample ${i}: ${JSON.stringify(shown)}`);
  }
  const settled = shown.filter(([, count]) => count === 1);
  assert.ok(settled.length > shown.length / 2, `the decisions were shown before their answers: ${JSON.stringify(shown)}`);
  // The engine agrees, and the last hunk is the one left and current.
  const review = await api(server, "/api/review");
  const pending = review.jobs.flatMap((job) => job.hunks);
  assert.deepEqual(pending.map((h) => h.line), [EDITED.at(-1)], JSON.stringify(review));
  assert.equal(await page.locator(".cm-editor .cm-hunk").count(), 1);
  assert.match(await page.locator(".cm-hunk-current").innerText(), new RegExp(`line ${EDITED.at(-1)}`));
  assert.equal(await page.getByTestId("review-item").count(), 1);
});

test("a completed job reopened by an undo elsewhere shows its review again", async () => {
  await page.unroute("**/api/agent/hunks/*/decide");
  const [last] = (await api(server, "/api/review")).jobs.flatMap((job) => job.hunks);
  await page.keyboard.press("Alt+KeyY");
  await page.getByTestId("review-count").filter({ hasText: /^0$/ }).waitFor();
  await page.keyboard.press("Control+KeyS");
  await page.getByTestId("job-status").filter({ hasText: "Completed" }).waitFor();
  assert.equal(await page.getByTestId("accept-job").count(), 0, "a completed job offers no review actions");
  // Another client sets the hunk back to pending: the job awaits review
  // again, and the panel says so, with its actions.
  await api(server, `/api/agent/hunks/${last.hunk_id}/decide`, "POST", { status: "pending" });
  await page.getByTestId("job-status").filter({ hasText: "Awaiting review" }).waitFor();
  await page.getByTestId("accept-job").waitFor();
  await page.getByTestId("review-count").filter({ hasText: /^1$/ }).waitFor();
  // The tree may list the hunk a moment before the review's listing says
  // whose it is; the panel never claims meanwhile that all is decided.
  await page.getByTestId("job-review-status").filter({ hasText: /1 hunk\(s\) to review/ }).waitFor({ timeout: 5000 });
});

test("rejecting all a run's pending hunks decides them and writes nothing", async () => {
  const before = disk(dir, "n.md");
  assert.match(before, /line 3: NEW/, "the accepted, saved hunks are on disk");
  await page.getByTestId("reject-job").filter({ hasText: "Reject all pending" }).click();
  await page.getByTestId("review-count").filter({ hasText: /^0$/ }).waitFor();
  const review = await api(server, "/api/review");
  assert.equal(review.total, 0, JSON.stringify(review));
  assert.equal(disk(dir, "n.md"), before, "a rejection never writes by itself, nor takes back saved work");
});
