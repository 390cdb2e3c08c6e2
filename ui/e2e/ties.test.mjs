// A move and its links are one change, checked on the disk, in a real
// browser: a note renamed from the tree; rejecting one of its link updates
// says first which link that leaves naming the old path (cancelled); the
// move accepted from the banner accepts its links; the moved note saved
// with Ctrl+S writes every note that linked to it in the same save.

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { browser, disk, serve, shot, vault, waitFor } from "./support.mjs";

const BETA = "# Beta\n\nÉtat : brouillon.\n";
const INDEX = "- [[Beta]]\n- [[Notes/Beta|la bêta]]\n";
const JOURNAL = "Vu [[Beta#État]] ce matin, « ça avance ».\n";
const ZOE = "Voir [la note](../Notes/Beta.md) 📝\n";

let dir, server, chrome, page;
before(async () => {
  dir = vault({ "Notes/Beta.md": BETA, "Index.md": INDEX, "Journal/Café.md": JOURNAL, "Projets/Zoë.md": ZOE });
  server = await serve(dir, []);
  ({ browser: chrome, page } = await browser());
});
after(async () => {
  await chrome?.close();
  await server?.stop();
});

test("a link update's reject says which link it leaves; the move accepted from its banner and saved leaves no link behind on disk", async () => {
  await page.goto(server.url);
  await page.locator('[data-testid="tree-file"][data-path="Notes/Beta.md"]').click();
  await page.getByTestId("open-path").filter({ hasText: /^Notes\/Beta\.md/ }).waitFor();
  await page.locator(".cm-content").click();
  await page.keyboard.press("F2");
  await page.getByTestId("tree-rename").fill("Archives/Bêta.md");
  await page.getByTestId("tree-rename").press("Enter");
  // The move and the three notes' link updates.
  await page.getByTestId("review-count").filter({ hasText: /^4$/ }).waitFor();

  // One link update rejected: the window asks first, naming the link it leaves.
  await page.locator('[data-testid="tree-file"][data-path="Index.md"]').click();
  await page.getByTestId("open-path").filter({ hasText: /^Index\.md/ }).waitFor();
  await page.locator('[data-testid="hunk-reject"]').first().click();
  const left = page.getByTestId("decision-links-left");
  await left.waitFor();
  assert.match(await left.innerText(), /Index\.md still links to Notes\/Beta\.md, which moves to Archives\/Bêta\.md/);
  await shot(page, "ties-1-links-left");
  await page.getByTestId("decision-cancel").click();
  await left.waitFor({ state: "detached" });
  await page.getByTestId("review-count").filter({ hasText: /^4$/ }).waitFor();

  // The move accepted from its banner accepts its links with it; Ctrl+S on
  // the moved note writes them all.
  await page.locator('[data-testid="tree-file"][data-path="Archives/Bêta.md"]').click();
  await page.getByTestId("file-op-accept").click();
  await page.getByTestId("review-count").filter({ hasText: /^0$/ }).waitFor();
  await page.locator(".cm-content").click();
  await page.keyboard.press("Control+KeyS");
  await waitFor(page, async () => existsSync(join(dir, "Archives/Bêta.md")), "the note moved on disk");
  assert.ok(!existsSync(join(dir, "Notes/Beta.md")));
  assert.equal(disk(dir, "Index.md"), "- [[Bêta]]\n- [[Archives/Bêta|la bêta]]\n");
  assert.equal(disk(dir, "Journal/Café.md"), "Vu [[Bêta#État]] ce matin, « ça avance ».\n");
  assert.match(disk(dir, "Projets/Zoë.md"), /\.\.\/Archives\/B/);
  await shot(page, "ties-2-saved");
});
