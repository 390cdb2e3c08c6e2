// Notes that move, in a real browser: the agent renames a note and the user
// renames another from the file tree. Both are proposals: the tree shows
// each note at its new path, marked; the links the engine rewrote are hunks
// of the same job. The agent's move is accepted with its links and saved;
// the tree's is rejected, and nothing of it reaches the disk.

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { api as get, browser, call, disk, serve, shot, vault, waitFor as until } from "./support.mjs";

const ATLAS = "# Atlas\n\nThe plan.\n";
const DAILY = "Met about [[Atlas]] today.\n";
const LIST = "- [the plan](Notes/Atlas.md)\n- [[Ideas]]\n";
const IDEAS = "# Ideas\n\nMany.\n";

const TURNS = [
  call("links", { file_path: "Notes/Atlas.md" }),
  call("propose_edits", {
    edits: [{ file_path: "Notes/Atlas.md", operation: "move", new_path: "Notes/Meridian.md" }],
    summary: "Renamed Atlas to Meridian; links follow.",
  }),
];

let dir, server, chrome, page;
before(async () => {
  dir = vault({ "Notes/Atlas.md": ATLAS, "Daily.md": DAILY, "List.md": LIST, "Ideas.md": IDEAS });
  server = await serve(dir, TURNS);
  ({ browser: chrome, page } = await browser());
});
after(async () => {
  await chrome?.close();
  await server?.stop();
});

test("a move from the agent and one from the tree are reviewed; only the accepted one happens", async () => {
  await page.goto(server.url);
  await page.getByTestId("instruction").fill("Rename the Atlas note to Meridian");
  await page.getByTestId("run").click();
  await page.getByTestId("job-status").filter({ hasText: "Awaiting review" }).waitFor();
  // The move and the two links it rewrote.
  await page.getByTestId("review-count").filter({ hasText: /^3$/ }).waitFor();
  const moved = page.locator('[data-testid="tree-file"][data-path="Notes/Meridian.md"]');
  await moved.waitFor();
  assert.equal(await page.locator('[data-testid="tree-file"][data-path="Notes/Atlas.md"]').count(), 0, "the old path is not listed");
  assert.equal(await moved.getByTestId("moved-badge").count(), 1);
  await moved.click();
  await page.getByTestId("file-op").waitFor();
  assert.match(await page.getByTestId("file-op").innerText(), /Moved from Notes\/Atlas\.md to Notes\/Meridian\.md/);
  await shot(page, "moves-1-agent-move");

  // The user renames another note from the tree.
  await page.locator('[data-testid="tree-file"][data-path="Ideas.md"]').click();
  await page.getByTestId("open-path").filter({ hasText: /^Ideas\.md/ }).waitFor();
  // F2 from the editor renames the open file, as from its tree row.
  await page.locator(".cm-content").click();
  await page.keyboard.press("F2");
  assert.equal(await page.getByTestId("tree-rename").inputValue(), "Ideas.md");
  await page.getByTestId("tree-rename").fill("Archive/Old Ideas.md");
  await page.getByTestId("tree-rename").press("Enter");
  // The tree's move, and the link in List.md it rewrote.
  await page.getByTestId("review-count").filter({ hasText: /^5$/ }).waitFor();
  const titles = await page.getByTestId("review-title").allInnerTexts();
  assert.ok(titles.includes("Move Ideas.md to Archive/Old Ideas.md"), titles.join(" | "));
  await page.locator('[data-testid="tree-file"][data-path="Archive/Old Ideas.md"]').click();
  await page.getByTestId("file-op").waitFor();
  await shot(page, "moves-2-tree-move");

  // The tree's move is rejected: its link goes with it.
  await page.getByTestId("file-op-reject").click();
  await page.getByTestId("review-count").filter({ hasText: /^3$/ }).waitFor();

  // The agent's move is accepted with its links, and saved.
  const review = await get(server, "/api/review");
  const job = review.jobs.find((j) => j.instruction.startsWith("Rename"));
  await get(server, "/api/agent/apply", "POST", { session_id: job.session_id, job_id: job.job_id, accepted_hunk_ids: job.hunks.map((h) => h.hunk_id) });
  await page.getByTestId("review-count").filter({ hasText: /^0$/ }).waitFor();
  await until(page, async () => existsSync(join(dir, "Notes/Meridian.md")), "the note is at its new path");
  assert.equal(disk(dir, "Notes/Meridian.md"), ATLAS);
  assert.ok(!existsSync(join(dir, "Notes/Atlas.md")), "no copy is left behind");
  assert.equal(disk(dir, "Daily.md"), "Met about [[Meridian]] today.\n");
  assert.equal(disk(dir, "List.md"), "- [the plan](Notes/Meridian.md)\n- [[Ideas]]\n", "the rejected move's link is untouched");
  assert.equal(disk(dir, "Ideas.md"), IDEAS, "the rejected move did not happen");
  assert.ok(!existsSync(join(dir, "Archive/Old Ideas.md")));
  // Saved, the move is no longer marked.
  await until(page, async () => (await moved.getByTestId("moved-badge").count()) === 0, "the moved badge gone once saved");
  await shot(page, "moves-3-applied");

  // A scoped rollback of one link update would take its move (and the
  // move's other link) with it: the panel says so before anything happens.
  await page.getByTestId("open-checkpoints").click();
  await page.locator('[data-testid="checkpoint"]').filter({ hasText: "Rename the Atlas note" }).filter({ hasText: "run ·" }).click();
  await page.locator(".cp-file").filter({ hasText: "Daily.md" }).getByTestId("checkpoint-hunk").check();
  await page.getByTestId("rollback-selected").click();
  const confirm = page.getByTestId("rollback-confirm");
  await confirm.waitFor();
  const carried = await page.getByTestId("rollback-plan-carried").innerText();
  assert.match(carried, /Notes\/Meridian\.md/, "the move goes with its link");
  assert.match(carried, /List\.md/, "and the move's other link");
  await shot(page, "moves-4-scoped-rollback-plan");
  await page.keyboard.press("Enter");
  await confirm.waitFor({ state: "detached" });
  await page.getByTestId("undo-rollback").waitFor();
  assert.equal(disk(dir, "Daily.md"), "Met about [[Meridian]] today.\n", "a rollback writes nothing");
  await page.keyboard.press("Escape");
  await page.locator('[data-testid="tree-file"][data-path="Notes/Atlas.md"]').waitFor();
  await page.getByTestId("save-all").click();
  await until(page, async () => existsSync(join(dir, "Notes/Atlas.md")), "saved, the note is back at its old path");
  assert.ok(!existsSync(join(dir, "Notes/Meridian.md")));
  assert.equal(disk(dir, "Daily.md"), DAILY);
  assert.equal(disk(dir, "List.md"), LIST);
});
