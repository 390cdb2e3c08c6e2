// Attachments move whole, in a real browser: the agent moves an image and
// the embeds follow it; the user deletes another image from the file tree,
// and drags it onto a folder.
// Neither has text to show: the editor says so, and the move is decided
// from its banner. The accepted move lands byte for byte; the rejected
// deletion leaves the image where it was.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { browser, call, disk, serve, shot, vault, waitFor as until } from "./support.mjs";

// A PNG's signature, a NUL and bytes that are not UTF-8.
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0xff, 0xfe, 0x41]);
const LOGO = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0xfe]);
const REPORT = "# Report\n\n![[chart.png]]\n\n![The chart](assets/chart.png)\n";

const TURNS = [
  call("propose_edits", {
    edits: [{ file_path: "assets/chart.png", operation: "move", new_path: "Media/q3-chart.png" }],
    summary: "Moved the chart into Media; embeds follow.",
  }),
];

let dir, server, chrome, page;
before(async () => {
  dir = vault({ "assets/chart.png": PNG, "assets/logo.jpg": LOGO, "Report.md": REPORT });
  server = await serve(dir, TURNS);
  ({ browser: chrome, page } = await browser());
});
after(async () => {
  await chrome?.close();
  await server?.stop();
});

test("an image moved by the agent lands whole with its embeds; one deleted and one dragged from the tree are rejected", async () => {
  await page.goto(server.url);
  await page.getByTestId("instruction").fill("Move the chart into Media as q3-chart.png");
  await page.getByTestId("run").click();
  await page.getByTestId("job-status").filter({ hasText: "Awaiting review" }).waitFor();
  // The move and the two embeds it rewrote.
  await page.getByTestId("review-count").filter({ hasText: /^3$/ }).waitFor();
  const moved = page.locator('[data-testid="tree-file"][data-path="Media/q3-chart.png"]');
  await moved.waitFor();
  assert.equal(await moved.getByTestId("moved-badge").count(), 1);
  await moved.click();
  await page.getByTestId("binary-file").waitFor();
  assert.match(await page.getByTestId("file-op").innerText(), /Moved from assets\/chart\.png to Media\/q3-chart\.png/);
  await shot(page, "attachments-1-moved");

  // The user deletes the logo from the tree, then thinks better of it.
  await page.locator('[data-testid="tree-file"][data-path="assets/logo.jpg"]').click();
  await page.getByTestId("binary-file").filter({ hasText: "logo.jpg" }).waitFor();
  await page.getByTestId("tree-delete-button").click();
  await page.getByTestId("review-count").filter({ hasText: /^4$/ }).waitFor();
  await page.locator('[data-testid="tree-file"][data-path="assets/logo.jpg"]').getByTestId("deleted-badge").waitFor();
  await page.getByTestId("file-op").filter({ hasText: "is deleted" }).waitFor();
  await page.getByTestId("file-op-reject").click();
  await page.getByTestId("review-count").filter({ hasText: /^3$/ }).waitFor();
  // Dragged onto a folder, it is proposed there; rejected too.
  await page.locator('[data-testid="tree-file"][data-path="assets/logo.jpg"]').dragTo(page.locator('[data-testid="tree-folder"][data-path="Media"]'));
  await page.getByTestId("review-count").filter({ hasText: /^4$/ }).waitFor();
  await page.locator('[data-testid="tree-file"][data-path="Media/logo.jpg"]').click();
  await page.getByTestId("file-op").filter({ hasText: "Moved from assets/logo.jpg to Media/logo.jpg" }).waitFor();
  await page.getByTestId("file-op-reject").click();
  await page.getByTestId("review-count").filter({ hasText: /^3$/ }).waitFor();

  // The agent's move is accepted from its banner: its embeds, one change
  // with it, are accepted too; Save all writes them and moves the image.
  await moved.click();
  await page.getByTestId("file-op-accept").click();
  await page.getByTestId("review-count").filter({ hasText: /^0$/ }).waitFor();
  assert.ok(existsSync(join(dir, "assets/chart.png")), "nothing moves before a save");
  await page.getByTestId("save-all").click();
  await until(page, async () => existsSync(join(dir, "Media/q3-chart.png")), "the image is at its new path");
  assert.deepEqual(readFileSync(join(dir, "Media/q3-chart.png")), PNG, "moved byte for byte");
  assert.ok(!existsSync(join(dir, "assets/chart.png")), "no copy is left behind");
  assert.equal(disk(dir, "Report.md"), "# Report\n\n![[q3-chart.png]]\n\n![The chart](Media/q3-chart.png)\n");
  assert.deepEqual(readFileSync(join(dir, "assets/logo.jpg")), LOGO, "the rejected deletion did not happen");
  await shot(page, "attachments-2-saved");
});
