// A follow-up request on pending work, in a real browser: the rename, then a
// second request on the same file before any decision; both jobs' hunks show,
// grouped under their instructions; one hunk of each is rejected, the rest
// accepted and saved, and the bytes on disk are checked. A one-word change in
// a long line is marked word by word.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { api as get, browser, call, disk, replaceLine, serve, shot, vault, waitFor as until } from "./support.mjs";

const LONG = `This note is about the project: ${"lorem ipsum ".repeat(10)}Atlas${" dolor sit amet".repeat(8)}`;
const A = `# Alpha\n\n${LONG}\n`;
const B = "# Beta\n\nAtlas beta notes, due in the third quarter.\n";
const C = "# Gamma\n\nAtlas launch, build 3f9a2c71d04e5b6a8c9d0e1f2a3b4c5d.\n";

const RENAME = "Rename Atlas to Meridian";
const FOLLOW_UP = "Also put the new name in the Alpha and Gamma headings";
const TURNS = [
  call("propose_edits", {
    edits: [replaceLine("a.md", 3, LONG, LONG.replace("Atlas", "Meridian")), replaceLine("b.md", 3, "Atlas beta notes, due in the third quarter.", "Meridian beta notes, due on 9 September."), replaceLine("c.md", 3, "Atlas launch, build 3f9a2c71d04e5b6a8c9d0e1f2a3b4c5d.", "Meridian launch, build 3f9a2c71d04e5b6a8c9d0e1f2a3b4c5e.")],
    summary: "Renamed.",
  }),
  call("read_file", { file_path: "a.md" }),
  call("propose_edits", {
    edits: [replaceLine("a.md", 1, "# Alpha", "# Alpha (Meridian)"), replaceLine("c.md", 1, "# Gamma", "# Gamma (Meridian)")],
    summary: "Headings.",
  }),
];

let dir, server, chrome, page;
before(async () => {
  dir = vault({ "a.md": A, "b.md": B, "c.md": C });
  server = await serve(dir, TURNS);
  ({ browser: chrome, page } = await browser());
});
after(async () => {
  await chrome?.close();
  await server?.stop();
});

async function decide(path, hunk, kind) {
  await page.locator(`[data-testid="review-item"][data-hunk-id="${hunk}"]`).click();
  await page.getByTestId("open-path").filter({ hasText: path }).waitFor();
  await page.locator(`[data-testid="hunk-${kind}"][data-hunk-id="${hunk}"]`).click();
  await page.locator(`[data-testid="review-item"][data-hunk-id="${hunk}"]`).waitFor({ state: "detached" });
}

test("a follow-up stacks on pending work; each job's hunks are reviewed on their own", async () => {
  await page.goto(server.url);
  await page.getByTestId("instruction").fill(RENAME);
  await page.getByTestId("run").click();
  await page.getByTestId("job-status").filter({ hasText: "Awaiting review" }).waitFor();
  await page.getByTestId("review-count").filter({ hasText: /^3$/ }).waitFor();

  // The follow-up, before any decision, in the same session.
  await page.getByTestId("instruction").fill(FOLLOW_UP);
  await page.getByTestId("run").click();
  await page.getByTestId("review-count").filter({ hasText: /^5$/ }).waitFor();
  const headings = await page.getByTestId("review-title").allInnerTexts();
  assert.deepEqual(headings, [RENAME, FOLLOW_UP], "grouped by job, oldest first");
  const previews = await page.getByTestId("hunk-preview").allInnerTexts();
  assert.ok(previews.some((p) => p.includes("Atlas") && p.includes("Meridian") && p.length < 120), `a preview shows the change, not the whole line: ${previews}`);
  // A row leads with the change: a dozen characters of the text before it at most.
  const leads = await page.locator('[data-testid="hunk-preview"]').evaluateAll((rows) => rows.map((r) => r.querySelector(".ctx")?.textContent ?? ""));
  assert.ok(leads.some((l) => l.startsWith("…")) && leads.every((l) => l.length <= 13), leads.join(" | "));
  await shot(page, "followups-1-grouped");

  const review = await get(server, "/api/review");
  const [rename, followUp] = review.jobs;
  const hunkIn = (group, path) => group.hunks.find((h) => h.path === path).hunk_id;

  // The long line's one-word change is marked word by word.
  await page.locator('[data-testid="tree-file"][data-path="a.md"]').click();
  await page.getByTestId("open-path").filter({ hasText: /^a\.md/ }).waitFor();
  // Each hunk's box is headed by the request that made it.
  await page.locator(".cm-hunk-label").nth(1).waitFor();
  const labels = await page.locator(".cm-hunk-label").allInnerTexts();
  assert.deepEqual(labels.sort(), [`${FOLLOW_UP.slice(0, 48)}…`, RENAME].sort());
  const added = await page.getByTestId("word-added").allInnerTexts();
  const removed = await page.getByTestId("word-removed").allInnerTexts();
  assert.ok(added.includes("Meridian"), `marked in the new text: ${added}`);
  assert.ok(removed.includes("Atlas"), `marked in the old text: ${removed}`);
  await shot(page, "followups-2-word-marks");
  // Whole words are marked, not "Septemb" against "quart" with their
  // shared "er" left out.
  await page.locator('[data-testid="tree-file"][data-path="b.md"]').click();
  await page.getByTestId("open-path").filter({ hasText: /^b\.md/ }).waitFor();
  const addedInB = (await page.getByTestId("word-added").allInnerTexts()).join("|");
  const removedInB = (await page.getByTestId("word-removed").allInnerTexts()).join("|");
  assert.equal(addedInB, "Meridian|on 9 September");
  assert.equal(removedInB, "Atlas|in the third quarter");
  // Inside one long token (a build hash), the characters that changed.
  await page.locator('[data-testid="tree-file"][data-path="c.md"]').click();
  await page.getByTestId("open-path").filter({ hasText: /^c\.md/ }).waitFor();
  const addedInC = (await page.getByTestId("word-added").allInnerTexts()).map((t) => t.trim());
  assert.deepEqual(await page.getByTestId("word-removed").allInnerTexts(), ["Atlas", "d"]);
  assert.deepEqual(addedInC, ["(Meridian)", "Meridian", "e"], "the heading's insertion leaves “Gamma” alone");

  // One rejected from each job; the others accepted.
  await decide("b.md", hunkIn(rename, "b.md"), "reject");
  await decide("c.md", hunkIn(followUp, "c.md"), "reject");
  await decide("a.md", hunkIn(rename, "a.md"), "accept");
  await decide("c.md", hunkIn(rename, "c.md"), "accept");
  await decide("a.md", hunkIn(followUp, "a.md"), "accept");
  await page.getByTestId("review-count").filter({ hasText: /^0$/ }).waitFor();
  assert.equal(disk(dir, "a.md"), A, "nothing written before a save");
  await page.getByTestId("save-all").click();
  await until(page, () => disk(dir, "a.md") === A.replace("# Alpha", "# Alpha (Meridian)").replace("Atlas", "Meridian"), "a.md saved with both jobs' hunks");
  assert.equal(disk(dir, "b.md"), B, "the rejected rename never reached the disk");
  await until(page, () => disk(dir, "c.md") === C.replace("Atlas launch", "Meridian launch").replace("c5d.", "c5e."), "c.md: the rename kept, the rejected heading left out");

  // Both reviews finished without Apply.
  await until(page, async () => (await get(server, `/api/agent/jobs/${followUp.job_id}`)).status === "completed", "the follow-up completed");
  await until(page, async () => (await get(server, `/api/agent/jobs/${rename.job_id}`)).status === "completed", "the rename completed");
  await page.getByTestId("review-finished").waitFor();
  await shot(page, "followups-3-saved");
});
