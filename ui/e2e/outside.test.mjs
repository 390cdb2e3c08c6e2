// Another program empties a note while Redline is open: the window says so
// at once, the change is held for review as a group of its own, and one
// click puts the note back byte for byte. Then Settings switches to review
// mode, and an ordinary edit is held too.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { after, before, test } from "node:test";
import { api as get, browser, disk, serve, shot, vault, waitFor as until } from "./support.mjs";

const PLAN = "# Plan\n\nShip in March.\n\n## Risks\n\nHiring is slow.\n";

let dir, server, chrome, page;
before(async () => {
  dir = vault({ "Plan.md": PLAN, "Notes.md": "# Notes\n" });
  server = await serve(dir, []);
  ({ browser: chrome, page } = await browser());
});
after(async () => {
  await chrome?.close();
  await server?.stop();
});

test("a note another program empties is shown at once and restored in one click", async () => {
  await page.goto(server.url);
  await page.locator('[data-testid="tree-file"][data-path="Plan.md"]').waitFor();
  // Redline knows the note's text once its index is filled.
  await until(page, async () => (await get(server, "/api/project")).index?.ready === true, "the index is filled");
  execFileSync("sh", ["-c", ": > Plan.md"], { cwd: dir });
  const alert = page.getByTestId("outside-alert");
  await alert.waitFor();
  assert.match(await alert.innerText(), /Plan\.md/);
  // The review list refreshes from the same feed a moment after the notice.
  await page.getByTestId("review-title").filter({ hasText: /^Changed outside Redline/ }).first().waitFor();
  await shot(page, "outside-1-emptied");
  await page.getByTestId("outside-restore").click();
  await until(page, async () => disk(dir, "Plan.md") === PLAN, "the note is back");
  await alert.waitFor({ state: "detached" });
  await shot(page, "outside-2-restored");

  // In review mode (chosen in Settings for this folder, taken at once) an
  // ordinary edit is held too, where record mode kept it.
  await page.getByTestId("open-settings").click();
  await page.getByTestId("folder-outside-changes").selectOption("review");
  await page.getByTestId("settings-save").click();
  await until(page, async () => (await get(server, "/api/settings")).folder_settings.outside_changes === "review", "the folder's mode is saved");
  assert.equal((await get(server, "/api/settings")).outside_changes, "record", "the default stays");
  await page.keyboard.press("Escape");
  execFileSync("sed", ["-i", "s/March/May/", "Notes.md", "Plan.md"], { cwd: dir });
  await until(page, async () => {
    const review = await get(server, "/api/review");
    return review.jobs.some((j) => j.instruction.startsWith("Changed outside") && j.hunks.some((h) => h.path === "Plan.md"));
  }, "the edit waits for review");
  assert.equal(disk(dir, "Plan.md"), PLAN.replace("March", "May"), "held, not reverted");
});
