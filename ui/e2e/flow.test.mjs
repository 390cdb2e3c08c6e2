// The whole flow in a real browser against `redline serve` and the scripted
// model: open, ask, answer a clarification, review (accept some hunks,
// reject others), type and save, check the bytes on disk, roll back to the
// checkpoint, undo the rollback.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { browser, call, disk, serve, shot, vault } from "./support.mjs";

const ALPHA = "# Alpha\n\nStatus: draft\nOwner: Ann\n";
const BETA = "# Beta\r\n\r\nStatus: draft\r\nOwner: Bo\r\n";
const GAMMA = "# Gamma\n\nStatus: draft\nOwner: Cy\n";

const edit = (file) => ({ file_path: file, operation: "replace", start_line: 3, end_line: 3, new_text: "Status: final", old_text: "Status: draft", rationale: null });
const TURNS = [
  call("search_project", { query: "Status:" }),
  call("clarify_user", { question: "Which status should the notes get?", suggested_answers: ["final", "done"] }),
  call("propose_edits", { edits: [edit("notes/alpha.md"), edit("notes/beta.md"), edit("notes/gamma.md")], summary: "All final." }),
];

let dir, server, chrome, page;
before(async () => {
  dir = vault({ "notes/alpha.md": ALPHA, "notes/beta.md": BETA, "notes/gamma.md": GAMMA });
  server = await serve(dir, TURNS);
  ({ browser: chrome, page } = await browser());
});
after(async () => {
  await chrome?.close();
  await server?.stop();
});

test("ask, clarify, review, save, roll back and undo", async () => {
  const accepted = (text) => text.replace("draft", "final");

  await page.goto(server.url);
  await page.getByTestId("project-name").filter({ hasText: /redline-e2e-/ }).waitFor();
  assert.equal(new URL(page.url()).searchParams.get("token"), null, "the token leaves the address bar");
  await page.getByTestId("tree-file").first().waitFor();
  await shot(page, "flow-1-open");

  await page.getByTestId("instruction").fill("Mark every note final");
  await page.getByTestId("run").click();
  await page.getByTestId("clarify").waitFor();
  await page.getByTestId("timeline").getByText(/search_project → 3 matching lines/).waitFor();
  await shot(page, "flow-2-question");
  // The question shows once in the timeline (its own row), not again as a call.
  assert.equal(await page.getByTestId("timeline").getByText("clarify_user").count(), 0);
  await page.getByTestId("timeline").getByText("Asked: Which status should the notes get?").waitFor();
  await page.getByTestId("suggested-answer").filter({ hasText: "final" }).click();

  await page.getByTestId("job-status").filter({ hasText: "Awaiting review" }).waitFor();
  await page.getByTestId("review-count").filter({ hasText: "3" }).waitFor();
  // With no file open, the proposal's first file opens at its first hunk,
  // and the keyboard stays where it was.
  await page.getByTestId("open-path").filter({ hasText: "notes/alpha.md" }).waitFor();
  await page.locator('[data-testid="hunk-accept"]').first().waitFor();
  assert.equal(await page.evaluate(() => document.activeElement?.closest(".cm-editor") ?? null), null, "the editor did not take the keyboard");
  assert.equal(disk(dir, "notes/alpha.md"), ALPHA, "nothing reaches the disk before a decision is saved");
  await shot(page, "flow-3-review");

  // Accept alpha's hunk with the button, reject beta's with the keyboard.
  await page.getByTestId("review-item").first().click();
  await page.getByTestId("open-path").filter({ hasText: "notes/alpha.md" }).waitFor();
  await page.locator('[data-testid="hunk-accept"]').first().click();
  // On to beta, saying that alpha has a decision to save.
  await page.getByTestId("open-path").filter({ hasText: "notes/beta.md" }).waitFor();
  await page.getByTestId("notice").filter({ hasText: "notes/alpha.md is decided, not saved yet" }).waitFor();
  await page.locator('[data-testid="hunk-reject"]').waitFor();
  await shot(page, "flow-4-next-file");
  await page.keyboard.press("Alt+KeyN");
  await page.getByTestId("open-path").filter({ hasText: "notes/gamma.md" }).waitFor();
  await page.keyboard.press("Alt+KeyY");
  await page.getByTestId("review-count").filter({ hasText: /^0$/ }).waitFor();
  // Nothing pending in view: the current-hunk actions have nothing to act on.
  await page.waitForFunction(() => ["accept-current", "reject-current"].every((id) => document.querySelector(`[data-testid="${id}"]`)?.disabled));

  // Undo the last decision, then decide it again.
  await page.keyboard.press("Alt+KeyU");
  await page.getByTestId("review-count").filter({ hasText: /^1$/ }).waitFor();
  await page.keyboard.press("Alt+KeyY");
  await page.getByTestId("review-count").filter({ hasText: /^0$/ }).waitFor();

  // Gamma: type a line, see it marked unsaved, save with Ctrl+S.
  await page.getByTestId("editor").click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("Checked by hand.\n");
  await page.getByTestId("dirty-marker").waitFor();
  await shot(page, "flow-5-typed");
  await page.keyboard.press("Control+KeyS");
  await page.getByTestId("dirty-marker").waitFor({ state: "detached" });
  assert.equal(disk(dir, "notes/gamma.md"), `${accepted(GAMMA)}Checked by hand.\n`);

  // Alpha: save with the button.
  await page.locator('[data-testid="tree-file"][data-path="notes/alpha.md"]').click();
  await page.getByTestId("open-path").filter({ hasText: "notes/alpha.md" }).waitFor();
  await page.getByTestId("save").click();
  await page.getByTestId("dirty-marker").waitFor({ state: "detached" });
  assert.equal(disk(dir, "notes/alpha.md"), accepted(ALPHA));
  assert.equal(disk(dir, "notes/beta.md"), BETA, "the rejected hunk never reached the disk, CRLF intact");
  await shot(page, "flow-6-saved");

  // Roll back gamma's hunk alone: it leaves the buffer, the line typed after it stays.
  await page.getByTestId("open-checkpoints").click();
  await page.getByTestId("checkpoint").first().waitFor();
  await page.getByTestId("compare").locator(".cm-editor").first().waitFor();
  // Named by the request, the lines and what changed there, not by ids.
  assert.equal(await page.getByTestId("checkpoint-title").textContent(), "Mark every note final");
  const hunkLabels = await page.locator(".cp-hunk").allTextContents();
  assert.ok(
    hunkLabels.length > 0 && hunkLabels.every((l) => /^line 3: “Status: draft” → “Status: final”( \(rejected\))?$/.test(l.trim())),
    hunkLabels.join(" | "),
  );
  // Beta's hunk was rejected: a scoped rollback has nothing of it to revert.
  assert.equal(await page.locator('[data-testid="checkpoint-hunk"]').nth(1).isDisabled(), true, hunkLabels.join(" | "));
  assert.match(hunkLabels[1], /rejected/);
  await shot(page, "flow-7-checkpoints");
  await page.locator('[data-testid="checkpoint-hunk"]').nth(2).check();
  await page.getByTestId("rollback-selected").click();
  await page.getByTestId("undo-rollback").waitFor();
  await page.keyboard.press("Escape");
  await page.locator('[data-testid="tree-file"][data-path="notes/gamma.md"]').click();
  await page.getByTestId("dirty-marker").waitFor();
  await page.keyboard.press("Control+KeyS");
  await page.getByTestId("dirty-marker").waitFor({ state: "detached" });
  assert.equal(disk(dir, "notes/gamma.md"), `${GAMMA}Checked by hand.\n`, "the scoped rollback keeps the later line");
  assert.equal(disk(dir, "notes/alpha.md"), accepted(ALPHA), "and the other hunks");

  // Roll the whole run back, confirmed in the panel after it listed what
  // goes (the run's changes, the line typed by hand since), then undo that.
  await page.getByTestId("open-checkpoints").click();
  await page.locator('[data-testid="checkpoint"]').filter({ hasText: "Mark every note final" }).filter({ hasText: "run ·" }).click();
  await page.getByTestId("rollback-all").click();
  const confirm = page.getByTestId("rollback-confirm");
  await confirm.waitFor();
  assert.match(await confirm.innerText(), /notes\/alpha\.md/);
  assert.match(await page.getByTestId("rollback-plan-typed").innerText(), /notes\/gamma\.md/);
  await shot(page, "flow-8-rollback-confirm");
  await page.getByTestId("rollback-cancel").click();
  await confirm.waitFor({ state: "detached" });
  assert.equal(disk(dir, "notes/gamma.md"), `${GAMMA}Checked by hand.\n`, "cancelled: nothing changed");
  await page.getByTestId("rollback-all").click();
  await confirm.waitFor();
  await page.keyboard.press("Enter");
  await page.getByTestId("compare").getByText("Status: draft").nth(1).waitFor();
  assert.equal(disk(dir, "notes/alpha.md"), accepted(ALPHA), "a rollback lands in the buffers first");
  await page.getByTestId("save-all").click();
  await waitFor(() => disk(dir, "notes/alpha.md") === ALPHA, "alpha rolled back");
  await waitFor(() => disk(dir, "notes/gamma.md") === GAMMA, "a hard rollback resets the run's files");
  assert.equal(disk(dir, "notes/beta.md"), BETA);
  await shot(page, "flow-9-rolled-back");
  await page.getByTestId("undo-rollback").click();
  await page.getByTestId("save-all").click();
  await waitFor(() => disk(dir, "notes/alpha.md") === accepted(ALPHA), "the rollback undone");
  await waitFor(() => disk(dir, "notes/gamma.md") === `${GAMMA}Checked by hand.\n`, "undo brings back the files as they were");
  await page.keyboard.press("Escape");
  await page.locator('[data-testid="tree-file"][data-path="notes/alpha.md"]').click();
  await page.getByTestId("open-path").filter({ hasText: "notes/alpha.md" }).waitFor();
  await waitFor(async () => (await page.getByTestId("editor").innerText()).includes("Status: final"), "the editor shows the file as it is now");
  await shot(page, "flow-10-undone");
});

async function waitFor(check, what, ms = 10_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  await shot(page, "flow-failure");
  assert.fail(`timed out: ${what}\n${["alpha", "beta", "gamma"].map((n) => `${n}: ${JSON.stringify(disk(dir, `notes/${n}.md`))}`).join("\n")}`);
}
