// Risk flags that lead with the risk: a run that changes notes it never read
// says so once, in one line, and its dead link leads the flagged rows; a
// deletion the user asked for in the answer to the agent's question is no
// unasked deletion.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { api, browser, call, replaceLine, serve, shot, vault } from "./support.mjs";

const RISKS = "# Plan — café\n\nIntro.\n\n## Risks\n\nBudget.\nPeople.\nTime.\n\n## Next\n\nShip.\n";
const NOTES = {
  "Plan.md": RISKS,
  "a.md": "Atlas notes\n",
  "b.md": "Atlas again\n",
  "c.md": "Atlas, third\n",
};

let dir, server, chrome, page;
before(async () => {
  dir = vault(NOTES);
  server = await serve(dir, [
    call("read_file", { file_path: "Plan.md" }),
    call("clarify_user", { question: "The Risks section is out of date. Should it go?", suggested_answers: ["Keep it"] }),
    call("propose_edits", {
      edits: [
        replaceLine("a.md", 1, "Atlas notes", "Meridian notes"),
        replaceLine("b.md", 1, "Atlas again", "Meridian again"),
        { file_path: "Plan.md", operation: "delete", start_line: 5, end_line: 10, new_text: "", old_text: "## Risks\n\nBudget.\nPeople.\nTime.\n\n", rationale: null },
        replaceLine("Plan.md", 13, "Ship.", "Ship, see [[Nowhere at all]]."),
      ],
      summary: "Renamed; the Risks section removed.",
    }),
  ]);
  ({ browser: chrome, page } = await browser());
  await page.goto(server.url);
  await page.getByTestId("tree-file").first().waitFor();
});
after(async () => {
  await chrome?.close();
  await server?.stop();
});

test("unread files said once; the dead link first; a deletion asked for in an answer is not flagged", async () => {
  await page.getByTestId("instruction").fill("Rename Atlas to Meridian");
  await page.getByTestId("run").click();
  await page.getByTestId("clarify").waitFor();
  await page.getByTestId("clarify-answer").fill("Oui, supprimez-la. Remove it.");
  await page.getByTestId("clarify-send").click();
  await page.getByTestId("review-count").filter({ hasText: /^4$/ }).waitFor();

  // The engine: the deletion asked for in the answer carries no flag; the
  // dead link does; the notes never read carry theirs.
  const hunks = (await api(server, "/api/review")).jobs.flatMap((j) => j.hunks);
  const rules = (path) => hunks.filter((h) => h.path === path).map((h) => (h.flags ?? []).map((f) => f.rule));
  assert.deepEqual(rules("Plan.md"), [[], ["dead_link"]]);
  // The two unread notes make one change: the flag is the pattern's.
  assert.deepEqual(rules("a.md"), [[]]);
  const [pattern] = (await api(server, "/api/review")).jobs[0].patterns;
  assert.deepEqual(pattern.pattern.flags.map((f) => f.rule), ["unread_file"]);
  assert.equal((await api(server, "/api/review")).jobs[0].flagged, 1, "the engine counts the risk alone, as the window does");

  // The window: one line for the unread notes, then the flagged rows, the
  // dead link leading; the unread notes' hunks are not among them.
  await page.getByTestId("unread-note").filter({ hasText: "⚑ 2 hunks in files the job never read" }).waitFor();
  const flagged = page.locator('[data-testid="review-item"][data-flagged]');
  assert.equal(await flagged.count(), 1);
  assert.equal(await flagged.getByTestId("hunk-flag").innerText(), "⚑ dead link");
  assert.match(await page.getByTestId("job-review-status").innerText(), /4 hunk\(s\) to review · ⚑ 1 flagged/);
  const order = await page.locator(".review-body [data-testid]").evaluateAll((els) => els.map((e) => e.dataset.testid));
  assert.ok(order.indexOf("unread-note") < order.indexOf("review-item"), order.join(" "));
  assert.equal(await page.locator('[data-testid="review-item"][data-path="a.md"] [data-testid="hunk-flag"]').count(), 0, "no row of its own for an unread file");
  await shot(page, "flags-1-unread-folded");
});
