// The editor's undo history belongs to the user: an engine change (a
// rejected hunk) never enters it, so Ctrl+Z after a reject neither brings the
// rejected text back nor records an edit; and each file keeps its own
// history while another file is open.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { api as get, browser, call, replaceLine, serve, shot, vault, waitFor as until } from "./support.mjs";

const A = "# A\n\nfirst: old\n\nmiddle\n\nlast: old\n";
const B = "# B\n\nonly: old\n";
const META = "---\ntitle: Meta\ntags: [a]\n---\n\n# Heading\n\nText.\n";

const TURNS = [
  call("propose_edits", {
    edits: [replaceLine("a.md", 3, "first: old", "first: NEW"), replaceLine("a.md", 7, "last: old", "last: NEW"), replaceLine("b.md", 3, "only: old", "only: NEW")],
    summary: "New values.",
  }),
];

let dir, server, chrome, page;
before(async () => {
  dir = vault({ "a.md": A, "b.md": B, "meta.md": META });
  server = await serve(dir, TURNS);
  ({ browser: chrome, page } = await browser());
});
after(async () => {
  await chrome?.close();
  await server?.stop();
});

const editorText = async () => (await get(server, "/api/files/content?path=a.md")).text;
const edited = async (path) => (await get(server, "/api/events?cursor=0")).events.filter((e) => e.type === "file.edited" && e.data.path === path);

test("Ctrl+Z undoes typing, never a decision; each file keeps its history", async () => {
  await page.goto(server.url);
  await page.getByTestId("instruction").fill("Set the new values");
  await page.getByTestId("run").click();
  await page.getByTestId("review-count").filter({ hasText: "3" }).waitFor();
  await page.locator('[data-testid="review-item"]').first().click();
  await page.getByTestId("open-path").filter({ hasText: /^a\.md/ }).waitFor();

  // Reject the first hunk from the keyboard, inside the editor.
  await page.getByTestId("editor").focus();
  await page.keyboard.press("Alt+KeyN");
  await page.getByTestId("review-count").filter({ hasText: /^2$/ }).waitFor();
  await until(page, async () => (await editorText()).includes("first: old"), "the engine has the reject");
  await page.getByTestId("editor").focus();
  await page.keyboard.press("Control+KeyZ");
  // Give a wrongly recorded undo the time to be sent (typing is sent after 250 ms).
  await new Promise((r) => setTimeout(r, 800));
  const shown = await page.getByTestId("editor").innerText();
  assert.ok(shown.includes("first: old") && !shown.includes("first: NEW"), `the rejected text stays out: ${shown}`);
  assert.ok(shown.includes("last: NEW"), "the pending hunk is still shown");
  assert.deepEqual(await edited("a.md"), [], "no user edit was recorded");
  assert.equal(await editorText(), A.replace("last: old", "last: NEW"));
  await shot(page, "editor-1-undo-after-reject");

  // Type in a.md, open b.md, come back: Ctrl+Z still undoes that typing.
  await page.getByTestId("editor").click();
  await page.keyboard.press("Control+Home");
  await page.keyboard.type("typed ");
  await until(page, async () => (await editorText()).startsWith("typed # A"), "the typing reached the engine");
  await page.locator('[data-testid="tree-file"][data-path="b.md"]').click();
  await page.getByTestId("open-path").filter({ hasText: /^b\.md/ }).waitFor();
  await page.locator('[data-testid="tree-file"][data-path="a.md"]').click();
  await page.getByTestId("open-path").filter({ hasText: /^a\.md/ }).waitFor();
  await page.getByTestId("editor").focus();
  await page.keyboard.press("Control+KeyZ");
  await until(page, async () => (await editorText()) === A.replace("last: old", "last: NEW"), "the undo reached the engine");
  const again = await page.getByTestId("editor").innerText();
  assert.ok(!again.includes("typed") && again.includes("first: old"), `undo took the typing back and only it: ${again}`);
  await shot(page, "editor-2-history-kept");
});

test("front matter is styled as metadata, never as a heading", async () => {
  await page.locator('[data-testid="tree-file"][data-path="meta.md"]').click();
  await page.getByTestId("open-path").filter({ hasText: "meta.md" }).waitFor();
  await page.locator(".cm-line", { hasText: "tags: [a]" }).waitFor();
  // Whether a line of the editor is drawn as a heading: bold or underlined.
  const heading = (text) =>
    page.locator(".cm-line", { hasText: text }).evaluate((line) =>
      [line, ...line.querySelectorAll("*")].some((el) => {
        const style = getComputedStyle(el);
        return Number(style.fontWeight) >= 600 || style.textDecorationLine.includes("underline");
      }),
    );
  assert.equal(await heading("tags: [a]"), false, "the front matter's last line is not a setext heading");
  assert.equal(await heading("title: Meta"), false);
  assert.equal(await heading("Heading"), true, "a real heading still is one");
});
