// The window's layout holds: a files pane dragged wide never squeezes the
// editor's bar under the sidebar, a notice is never behind a button, and
// Save says when there is nothing to save.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { browser, serve, shot, vault } from "./support.mjs";

let dir, server, chrome, page;
before(async () => {
  dir = vault({ "Projets/Un nom de note assez long — été 2026.md": "# Été\n\nTexte.\n" });
  server = await serve(dir, []);
  ({ browser: chrome, page } = await browser());
  await page.goto(server.url);
  await page.getByTestId("tree-file").first().click();
  await page.getByTestId("editor").getByText("Texte.").waitFor();
});
after(async () => {
  await chrome?.close();
  await server?.stop();
});

const rect = (testid) => page.getByTestId(testid).first().evaluate((e) => e.getBoundingClientRect().toJSON());

test("a files pane dragged as wide as it goes leaves the editor's bar whole, beside the sidebar", async () => {
  for (const width of [1280, 1000]) {
    await page.setViewportSize({ width, height: 800 });
    const handle = page.locator(".pane-resizer");
    const box = await handle.boundingBox();
    await page.mouse.move(box.x + 3, box.y + 100);
    await page.mouse.down();
    await page.mouse.move(box.x + 900, box.y + 100, { steps: 5 });
    await page.mouse.up();
    const sidebar = await page.locator("aside.right").evaluate((e) => e.getBoundingClientRect().left);
    const bar = await page.locator(".editor-bar").evaluate((e) => {
      const r = e.getBoundingClientRect();
      return { right: r.right, buttons: [...e.querySelectorAll("button")].map((b) => b.getBoundingClientRect().right) };
    });
    assert.ok(bar.right <= sidebar + 1, `${width}px: the bar ends at the sidebar (${bar.right} ≤ ${sidebar})`);
    assert.ok(Math.max(...bar.buttons) <= sidebar + 1, `${width}px: no button under the sidebar`);
    const path = await rect("open-path");
    assert.ok(path.width >= 100, `${width}px: the path keeps room to be read (${path.width}px)`);
  }
  await shot(page, "layout-1-wide-files-pane");
});

test("Save is no call to action with nothing to save", async () => {
  const save = page.getByTestId("save");
  assert.equal(await save.isDisabled(), true);
  assert.equal(await save.getAttribute("class"), null);
  await page.locator(".cm-content").click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("Ajouté.");
  await page.getByTestId("dirty-marker").waitFor();
  assert.equal(await save.isDisabled(), false);
  assert.equal(await save.getAttribute("class"), "primary");
  await save.click();
  await page.getByTestId("dirty-marker").waitFor({ state: "detached" });
});

test("a notice is shown over the window, clear of the header's buttons", async () => {
  await page.getByTestId("open-settings").click();
  await page.getByTestId("settings").waitFor();
  await page.getByTestId("settings-save").click();
  const notice = page.getByTestId("notice");
  await notice.waitFor();
  const shown = await notice.evaluate((e) => e.getBoundingClientRect().toJSON());
  for (const id of ["open-checkpoints", "open-settings"]) {
    const b = await rect(id);
    const overlaps = !(shown.right <= b.left || b.right <= shown.left || shown.bottom <= b.top || b.bottom <= shown.top);
    assert.ok(!overlaps, `the notice is clear of ${id}`);
  }
  const z = await notice.evaluate((e) => Number(getComputedStyle(e).zIndex));
  const overlay = await page.locator(".overlay").evaluate((e) => Number(getComputedStyle(e).zIndex));
  assert.ok(z > overlay, "over an open panel too");
  await page.keyboard.press("Escape");
});
