// One focus model: every panel and dialog, opened from the editor, the
// tree or the page, takes the keyboard, keeps Tab inside it, closes on
// Escape and gives the focus back where it was; nothing typed while one is
// open reaches the note behind it (its bytes, on screen and on disk, are
// checked after each). A rollback's confirmation rolls back on Enter after
// a click inside it. Quick open's Enter opens the best match for what was
// typed, though its answer comes late.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { browser, call, disk, replaceLine, serve, shot, vault, waitFor } from "./support.mjs";

const NOTE = "# Café — plan\n\nStatus: brouillon\nOwner: Zoë\n";

/** Each panel: the key that opens it, the header button that does (if any), its test id. */
const PANELS = [
  ["F1", null, "help"],
  ["Alt+Comma", "open-settings", "settings"],
  ["Alt+KeyP", "open-checkpoints", "checkpoints"],
  ["Control+KeyP", null, "quick-open"],
  ["Control+Shift+KeyF", null, "search-panel"],
  ["Control+Shift+KeyH", null, "replace-panel"],
];

let dir, server, chrome, page;
before(async () => {
  dir = vault({ "plan.md": NOTE, "other.md": "Autre note\n" });
  server = await serve(dir, [call("propose_edits", { edits: [replaceLine("plan.md", 3, "Status: brouillon", "Status: final")], summary: "Final." })]);
  ({ browser: chrome, page } = await browser());
  await page.goto(server.url);
  await page.locator('[data-testid="tree-file"][data-path="plan.md"]').click();
  await page.getByTestId("editor").getByText("Owner: Zoë").waitFor();
});
after(async () => {
  await chrome?.close();
  await server?.stop();
});

/** Where the keyboard is: the open dialog's test id, "editor", a tree row's path, or the element's tag. */
const focused = () =>
  page.evaluate(() => {
    const a = document.activeElement;
    const dialog = a?.closest("[role=dialog], [role=alertdialog]");
    if (dialog) return `dialog:${dialog.getAttribute("data-testid")}`;
    if (a?.closest(".cm-editor")) return "editor";
    if (a?.getAttribute("data-testid") === "tree-file") return `tree:${a.getAttribute("data-path")}`;
    return a?.tagName.toLowerCase() ?? "none";
  });

/** Puts the keyboard in `where`: the note, a tree row, or the page. */
async function focusOn(where) {
  if (where === "editor") await page.locator(".cm-content").click();
  else if (where === "tree:other.md") await page.locator('[data-testid="tree-file"][data-path="other.md"]').focus();
  else await page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
  return focused();
}

/** The note as the editor shows it, unchanged, with nothing unsaved. */
async function untouched(what) {
  const shown = await page.getByTestId("editor").innerText();
  assert.equal(await page.getByTestId("dirty-marker").count(), 0, `${what}: no unsaved mark (the note shows ${JSON.stringify(shown)})`);
  assert.match(await page.getByTestId("editor").innerText(), /Status: brouillon\s+Owner: Zoë/, `${what}: the note on screen`);
  assert.equal(disk(dir, "plan.md"), NOTE, `${what}: the note on disk`);
}

for (const where of ["editor", "tree:other.md", "page"]) {
  test(`every panel opened from the ${where.split(":")[0]} takes the keyboard, keeps Tab, closes on Escape and gives it back`, async () => {
    for (const [key, button, id] of PANELS) {
      for (const by of button ? ["key", "button"] : ["key"]) {
        const was = await focusOn(where);
        if (by === "key") await page.keyboard.press(key);
        else await page.getByTestId(button).click();
        await page.getByTestId(id).waitFor();
        assert.equal(await focused(), `dialog:${id}`, `${id} (by ${by} from ${where}) has the keyboard`);
        await page.keyboard.type("qz Ω");
        await page.keyboard.press("Backspace");
        for (let k = 0; k < 25; k++) {
          await page.keyboard.press(k % 5 === 4 ? "Shift+Tab" : "Tab");
          assert.equal(await focused(), `dialog:${id}`, `${id}: Tab ${k + 1} stays inside`);
        }
        await page.keyboard.press("Escape");
        await page.getByTestId(id).waitFor({ state: "detached" });
        // A button click moves the keyboard to the button; by key it goes back where it was.
        if (by === "key") assert.equal(await focused(), was, `${id}: the keyboard goes back to the ${where}`);
        await untouched(`${id} by ${by} from ${where}`);
      }
    }
  });
}

test("a panel keeps the keyboard when the note behind it takes the focus back", async () => {
  await focusOn("editor");
  await page.keyboard.press("F1");
  await page.getByTestId("help").waitFor();
  await page.evaluate(() => document.querySelector(".cm-content").focus());
  assert.equal(await focused(), "dialog:help");
  await page.keyboard.type("zz");
  await page.keyboard.press("Enter");
  await page.keyboard.press("Escape");
  await page.getByTestId("help").waitFor({ state: "detached" });
  await untouched("help with the note focused behind it");
  // Shortcuts that act on the note wait while a panel is open.
  await page.getByTestId("instruction").fill("Finish the plan");
  await page.getByTestId("run").click();
  await page.getByTestId("review-count").filter({ hasText: /^1$/ }).waitFor();
  await page.getByTestId("review-item").click();
  await page.locator('[data-testid="hunk-accept"]').waitFor();
  await page.keyboard.press("Alt+Comma");
  await page.getByTestId("settings").waitFor();
  await page.keyboard.press("Alt+KeyY");
  await page.keyboard.press("Escape");
  await page.getByTestId("settings").waitFor({ state: "detached" });
  assert.equal(await page.locator('[data-testid="hunk-accept"]').count(), 1, "Alt+Y with Settings open decided nothing");
  assert.equal(disk(dir, "plan.md"), NOTE);
});

test("the rollback's confirmation, clicked inside, rolls back on Enter and lists its files as a list", async () => {
  await page.locator('[data-testid="hunk-accept"]').click();
  await page.keyboard.press("Control+KeyS");
  await waitFor(page, () => disk(dir, "plan.md") === NOTE.replace("brouillon", "final"), "the accepted hunk saved");
  await page.getByTestId("open-checkpoints").click();
  await page.locator('[data-testid="checkpoint"]').filter({ hasText: "Finish the plan" }).first().click();
  await page.getByTestId("rollback-all").click();
  const confirm = page.getByTestId("rollback-confirm");
  await confirm.waitFor();
  assert.equal(await focused(), "dialog:rollback-confirm");
  assert.deepEqual(await page.getByTestId("rollback-files").locator("li").allInnerTexts(), ["plan.md"]);
  await shot(page, "focus-1-rollback-confirm");
  // Escape leaves the confirmation, not the panel under it.
  await page.keyboard.press("Escape");
  await confirm.waitFor({ state: "detached" });
  assert.equal(await focused(), "dialog:checkpoints");
  await page.getByTestId("rollback-all").click();
  await confirm.waitFor();
  await confirm.locator("p").first().click();
  await page.keyboard.press("Enter");
  await confirm.waitFor({ state: "detached" });
  await page.getByTestId("undo-rollback").waitFor();
  await page.keyboard.press("Escape");
  await page.getByTestId("checkpoints").waitFor({ state: "detached" });
  await page.getByTestId("dirty-marker").waitFor();
  assert.match(await page.getByTestId("editor").innerText(), /Status: brouillon/, "rolled back in the buffer");
});

test("a rename's note, opened at its new path a moment later, leaves the keyboard in the instruction box", async () => {
  await page.locator('[data-testid="tree-file"][data-path="other.md"]').click();
  await page.getByTestId("editor").getByText("Autre note").waitFor();
  await page.locator(".cm-content").click();
  // The proposal takes a moment to come back, as a vault's does.
  await page.route("**/api/files/op", async (route) => {
    const answer = await route.fetch();
    await new Promise((r) => setTimeout(r, 800));
    await route.fulfill({ response: answer });
  });
  await page.keyboard.press("F2");
  await page.getByTestId("tree-rename").fill("Autres/Autre note.md");
  await page.getByTestId("tree-rename").press("Enter");
  // Typing somewhere else at once, before the proposal comes back.
  await page.getByTestId("instruction").fill("");
  await page.getByTestId("instruction").click();
  await page.keyboard.type("Résumé ");
  await page.getByTestId("open-path").filter({ hasText: "Autres/Autre note.md" }).waitFor();
  await page.keyboard.type("des notes");
  assert.equal(await page.getByTestId("instruction").inputValue(), "Résumé des notes");
  assert.equal(await focused(), "textarea");
  assert.doesNotMatch(await page.getByTestId("editor").innerText(), /Résumé|des notes/);
  assert.equal(disk(dir, "other.md"), "Autre note\n");
  await page.unroute("**/api/files/op");
});

test("quick open's Enter, pressed before the answer to what was typed comes, opens that answer's best match", async () => {
  await page.keyboard.press("Escape");
  await page.locator(".cm-content").click();
  await page.keyboard.press("Control+KeyP");
  const items = page.getByTestId("quick-open-item");
  await items.first().waitFor();
  // A file the list shows, not first and not open: Enter on the list
  // shown would open another.
  const paths = await items.evaluateAll((els) => els.map((e) => e.dataset.path));
  const open = await page.getByTestId("open-path").getAttribute("data-path");
  const want = paths.find((p, i) => i > 0 && p !== paths[0] && p !== open);
  assert.ok(want, `two files listed: ${paths}`);
  // The answer to the full name takes a second, as in a big vault on a busy machine.
  let slowed = 0;
  await page.route("**/api/files/find?*", async (route) => {
    if (new URL(route.request().url()).searchParams.get("query") === want) {
      slowed++;
      await new Promise((r) => setTimeout(r, 1000));
    }
    await route.continue();
  });
  await page.getByTestId("quick-open-input").fill(want);
  await page.keyboard.press("Enter");
  await page.getByTestId("open-path").filter({ hasText: want }).waitFor();
  assert.equal(await page.getByTestId("open-path").getAttribute("data-path"), want);
  assert.equal(slowed, 1, "the answer was slow");
  await page.unroute("**/api/files/find?*");
});
