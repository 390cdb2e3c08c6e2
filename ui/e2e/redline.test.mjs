// The redline view: a note under review read rendered, its changes marked in
// place and decided there. Two copies of one note get the same four edits;
// one is decided in the redline view (the bar and the keys), the other in
// the source view, the same way: both end with the same bytes on disk.
// A note of hostile HTML renders without running or loading any of it.
// Alt+R right after a click on a note turns that note, while it loads.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { api, browser, call, disk, docsShot, serve, vault, waitFor } from "./support.mjs";

/** Hovers the change `mark` (an element with its hunk's id, or inside
 * one) and waits for the bar `bar` to act on it: the bar goes to a change
 * once the pointer rests there. */
async function hoverChange(page, mark, bar = "redline-bar") {
  const id = await mark.evaluate((el) => el.closest("[data-hunk]").dataset.hunk);
  await mark.hover();
  await page.locator(`[data-testid="${bar}"][data-for="${id}"]`).waitFor();
}

const NOTE = [
  "---",
  "title: Plan",
  "status: draft",
  "---",
  "# Plan",
  "",
  "See [[Budget|the budget]] and ==this== today. #project",
  "",
  "| item | cost |",
  "|---|---|",
  "| café | 2 |",
  "",
  "- [ ] write",
  "- [x] read",
  "",
  "> [!note] Heads up",
  "> Keep it short.[^1]",
  "",
  "[^1]: A footnote.",
  "",
  "```js",
  "const x = 1;",
  "```",
  "",
  "![[chart.png]]",
  "",
  "![[Budget 2027#Costs]]",
  "",
].join("\n");

const HOSTILE = [
  "# Hostile",
  "",
  "<script>window.__pwned = 'script'</script>",
  "",
  '<img src="x" onerror="window.__pwned = \'onerror\'">',
  "",
  "[click](javascript:window.__pwned='link') and <a href=\"javascript:window.__pwned='a'\">this</a>",
  "",
  "![remote](https://example.org/a.png) <img src=\"https://example.org/b.png\">",
  "",
  '<div onclick="window.__pwned=\'div\'" style="background:url(https://example.org/c.png)">styled</div>',
  "",
].join("\n");

/** The four edits, to `path`. */
const edits = (path) => [
  { file_path: path, operation: "replace", start_line: 3, end_line: 3, old_text: "status: draft", new_text: "status: final", rationale: null },
  { file_path: path, operation: "replace", start_line: 7, end_line: 7, old_text: "See [[Budget|the budget]] and ==this== today. #project", new_text: "See [[Budget 2027|the budget]] and ==that== today. #project", rationale: null },
  { file_path: path, operation: "replace", start_line: 11, end_line: 11, old_text: "| café | 2 |", new_text: "| café | 3 |", rationale: null },
  { file_path: path, operation: "delete", start_line: 14, end_line: 14, old_text: "- [x] read\n", new_text: "", rationale: null },
];

let dir, server, chrome, page;
const remote = [];
before(async () => {
  const docs = Object.fromEntries([1, 2, 3].map((n) => [`Docs/Meeting ${n}.md`, `# Meeting ${n}\n\nWe met about **Atlas** — café at ${n}.\n\n- agenda ${n}\n`]));
  // A 1×1 PNG, for the embed.
  const chart = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
  dir = vault({ "Rendered.md": NOTE, "Source.md": NOTE, "Hostile.md": HOSTILE, "Budget 2027.md": "# Budget 2027\n\nThe year's plan.\n\n## Costs\n\nCafé: **3 €** a day.\n\n## Later\n\nNot shown.\n", ...docs });
  const meeting = (n) => ({ file_path: `Docs/Meeting ${n}.md`, operation: "replace", start_line: 3, end_line: 3, old_text: `We met about **Atlas** — café at ${n}.`, new_text: `We met about **Meridian** — café at ${n}.`, rationale: null });
  server = await serve(dir, [
    call("propose_edits", { edits: [...edits("Rendered.md"), ...edits("Source.md")], summary: "Final." }),
    call("propose_edits", { edits: [1, 2, 3].map(meeting), summary: "Renamed." }),
  ]);
  const { writeFileSync, mkdirSync } = await import("node:fs");
  mkdirSync(`${dir}/Attachments`, { recursive: true });
  writeFileSync(`${dir}/Attachments/chart.png`, chart);
  ({ browser: chrome, page } = await browser());
  page.on("request", (r) => {
    if (!r.url().startsWith(server.url.split("/?")[0])) remote.push(r.url());
  });
});
after(async () => {
  await chrome?.close();
  await server?.stop();
});

const redline = () => page.getByTestId("redline");

test("a note reads rendered, each change marked where it stands, and decided there as in the source", async () => {
  await page.goto(server.url);
  await page.getByTestId("instruction").fill("Make the plan final");
  await page.getByTestId("run").click();
  await page.getByTestId("review-count").filter({ hasText: /^8$/ }).waitFor();
  await page.locator('[data-testid="tree-file"][data-path="Rendered.md"]').click();
  await page.getByTestId("open-path").filter({ hasText: "Rendered.md" }).waitFor();
  await page.locator(".cm-content").waitFor();
  await page.keyboard.press("Alt+KeyR");
  await redline().waitFor();

  // The structure, as Obsidian renders it.
  const note = redline().locator(".redline-note");
  assert.equal(await note.locator("h1").innerText(), "Plan");
  assert.equal(await note.locator("table.properties th").first().innerText(), "title");
  assert.equal(await note.locator("a.wikilink").first().innerText(), "the budget");
  assert.equal(await note.locator(".callout .callout-title").innerText(), "Heads up");
  assert.equal(await note.locator("mark").count(), 1);
  assert.equal(await note.locator(".tag").innerText(), "#project");
  assert.equal(await note.locator("input.task-list-item-checkbox").count(), 2);
  assert.ok((await note.locator("pre code").innerText()).includes("const x = 1;"));
  assert.equal(await note.locator("pre code .hljs-keyword").innerText(), "const", "code coloured by its language");
  // An image embed drawn from the vault (found by its name), from a data: address.
  const img = note.locator("img.embed-drawn");
  await img.waitFor();
  assert.match(await img.getAttribute("src"), /^data:image\/png;base64,iVBOR/);
  assert.equal(await img.evaluate((e) => e.naturalWidth), 1);
  assert.ok((await note.locator(".footnotes, section.footnotes, .footnote-list").count()) > 0 || (await note.innerText()).includes("A footnote."));
  // A note embed: a titled excerpt of the section it names, rendered.
  const embedded = note.locator(".embed-note-drawn");
  await embedded.waitFor();
  assert.equal(await embedded.locator(".embed-title").innerText(), "↪ Budget 2027 › Costs");
  assert.equal(await embedded.locator(".embed-body strong").innerText(), "3 €");
  assert.ok(!(await embedded.innerText()).includes("Not shown"), "the section only");

  // Each change where the source's diff puts it, tied to its hunk.
  const cell = note.locator("table:not(.properties) td").nth(1);
  assert.equal(await cell.locator("del.rl-del").innerText(), "2");
  assert.equal(await cell.locator("ins.rl-ins").innerText(), "3");
  assert.equal(await note.locator("td.property-value del.rl-del").first().innerText(), "draft");
  assert.equal(await note.locator("td.property-value ins.rl-ins").first().innerText(), "final");
  // The link's target changed under the same words: one link, both targets on hover.
  const retarget = note.locator(".rl-retarget");
  assert.equal(await retarget.getAttribute("title"), "Link: Budget → Budget 2027");
  assert.equal(await retarget.locator("a.wikilink").getAttribute("data-target"), "Budget 2027");
  assert.equal((await note.locator("li.rl-del-block").innerText()).trim(), "read");
  const hunks = new Set(await note.locator("[data-hunk]").evaluateAll((els) => els.map((e) => e.dataset.hunk)));
  assert.equal(hunks.size, 4, `four hunks marked: ${[...hunks]}`);
  await docsShot(page, "redline-1-rendered", "redline");

  // Decide in the rendered view: accept the property from its bar, reject
  // the table's change by key, accept the link's and undo it, reject the
  // removed item.
  await hoverChange(page, note.locator("td.property-value ins.rl-ins").first());
  // The bar stands in the note's margin: none of the note's text is under it.
  const overText = await page.evaluate(() => {
    const bar = document.querySelector('[data-testid="redline-bar"]').getBoundingClientRect();
    const article = document.querySelector(".redline-note");
    const textRight = article.getBoundingClientRect().right - parseFloat(getComputedStyle(article).paddingRight);
    return bar.left < textRight;
  });
  assert.equal(overText, false, "the bar covers none of the note's text");
  await docsShot(page, "redline-1b-bar", "redline-bar");
  await page.getByTestId("redline-accept").click();
  await page.getByTestId("file-pending").filter({ hasText: "3 pending" }).waitFor();
  await cell.locator("ins.rl-ins").click();
  await page.keyboard.press("Alt+KeyN");
  await page.getByTestId("file-pending").filter({ hasText: "2 pending" }).waitFor();
  await hoverChange(page, note.locator(".rl-retarget").first());
  await page.getByTestId("redline-accept").click();
  await page.getByTestId("file-pending").filter({ hasText: "1 pending" }).waitFor();
  // The undo puts the cursor on the change it brought back as the note is
  // shown again, not once the review's lists come (slow on a busy
  // machine): a change picked when the note shows the undo is the one the
  // next key decides.
  let release;
  const held = new Promise((r) => (release = r));
  const listing = /\/api\/review\?/;
  await page.route(listing, async (route) => {
    await held;
    await route.continue();
  });
  await page.keyboard.press("Alt+KeyU");
  await page.getByTestId("file-pending").filter({ hasText: "2 pending" }).waitFor();
  const removed = note.locator("li.rl-del-block");
  const removedId = await removed.evaluate((el) => el.closest("[data-hunk]").dataset.hunk);
  await removed.click();
  await page.locator(`[data-testid="redline-bar"][data-for="${removedId}"]`).waitFor();
  const listed = page.waitForResponse(listing);
  release();
  await listed;
  await page.unroute(listing);
  await page.waitForTimeout(500);
  await page.keyboard.press("Alt+KeyN");
  await page.getByTestId("file-pending").filter({ hasText: "1 pending" }).waitFor();
  assert.equal(await note.locator("li.rl-del-block").count(), 0, "the change clicked is the one rejected");
  // What is decided reads as plain text; what is pending is still marked.
  assert.equal(await note.locator("td.property-value").nth(1).innerText(), "final");
  assert.equal(await note.locator("[data-hunk]").evaluateAll((els) => new Set(els.map((e) => e.dataset.hunk)).size), 1);
  await hoverChange(page, note.locator(".rl-retarget").first());
  await page.getByTestId("redline-accept").click();
  // Every change of the note decided: the window goes on to the next note.
  await waitFor(page, async () => (await api(server, "/api/files/content?path=Rendered.md")).state.pending_hunks.length === 0, "the last decision");

  // The same in the source view, on the copy.
  await page.locator('[data-testid="tree-file"][data-path="Source.md"]').click();
  await page.getByTestId("open-path").filter({ hasText: "Source.md" }).waitFor();
  assert.equal(await redline().count(), 0, "the choice is the note's: the copy shows its source");
  // The same decisions, in the same order, from the source view's hunk boxes.
  const [status, link, table, item] = (await api(server, "/api/files/content?path=Source.md")).hunks.map((h) => h.hunk_id);
  const box = async (id, kind, left) => {
    await page.locator(`[data-testid="hunk-${kind}"][data-hunk-id="${id}"]`).click();
    await page.getByTestId("file-pending").filter({ hasText: `${left} pending` }).waitFor();
  };
  await box(status, "accept", 3);
  await box(table, "reject", 2);
  await box(link, "accept", 1);
  await page.keyboard.press("Alt+KeyU");
  await page.getByTestId("file-pending").filter({ hasText: "2 pending" }).waitFor();
  await box(item, "reject", 1);
  await box(link, "accept", 0);
  await page.getByTestId("file-pending").filter({ hasText: "0 pending" }).waitFor();

  await page.getByTestId("save-all").click();
  await waitFor(page, async () => disk(dir, "Rendered.md") !== NOTE && disk(dir, "Source.md") !== NOTE, "both saved");
  assert.equal(disk(dir, "Rendered.md"), disk(dir, "Source.md"), "the same decisions, the same bytes");
  assert.ok(disk(dir, "Rendered.md").includes("[[Budget 2027|the budget]]") && disk(dir, "Rendered.md").includes("| café | 2 |"));

  // The choice is remembered: after a reload the note opens rendered.
  await page.reload();
  await page.locator('[data-testid="tree-file"][data-path="Rendered.md"]').click();
  await redline().waitFor();
  // A link outside any change opens the note it names.
  await redline().locator("a.wikilink").first().click();
  await page.getByTestId("open-path").filter({ hasText: "Budget 2027.md" }).waitFor();
  await page.locator('[data-testid="tree-file"][data-path="Rendered.md"]').click();
  await redline().waitFor();
  await page.getByTestId("redline-toggle").click();
  await redline().waitFor({ state: "detached" });
  await page.locator(".cm-content").waitFor();
});

test("a note's hostile HTML renders without running or loading any of it", async () => {
  await page.locator('[data-testid="tree-file"][data-path="Hostile.md"]').click();
  await page.getByTestId("open-path").filter({ hasText: "Hostile.md" }).waitFor();
  await page.getByTestId("redline-toggle").click();
  await redline().waitFor();
  const note = redline().locator(".redline-note");
  await note.getByText("styled").click();
  await note.getByText("click").click().catch(() => {});
  await note.getByText("this").click().catch(() => {});
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.__pwned ?? null), null, "nothing ran");
  assert.equal(await note.locator("script").count(), 0);
  assert.equal(await note.locator('[href^="javascript"], [onerror], [onclick], [style]').count(), 0);
  assert.equal(await note.locator("img[src]").count(), 0, "no image loads");
  assert.ok((await note.locator("img.rl-image").first().getAttribute("alt")).includes("not loaded"));
  assert.deepEqual(remote, [], "nothing was fetched from another host");
});

test("a run reads as one document: its notes rendered one after another, decided in place, exported as one file", async () => {
  await page.keyboard.press("Escape");
  await page.getByTestId("instruction").fill("Atlas is Meridian now");
  await page.getByTestId("run").click();
  await page.locator('[data-testid="job-status"][data-status="awaiting_review"]').waitFor();
  await page.getByTestId("read-job").click();
  const doc = page.getByTestId("run-document");
  await doc.waitFor();
  assert.equal(await doc.getByTestId("run-document-count").innerText(), "· 3 note(s) with changes");
  const notes = doc.getByTestId("run-note");
  assert.deepEqual(await notes.evaluateAll((els) => els.map((e) => e.dataset.path)), ["Docs/Meeting 1.md", "Docs/Meeting 2.md", "Docs/Meeting 3.md"]);
  const first = notes.first();
  await first.locator("strong del.rl-del").waitFor();
  assert.equal(await first.locator("strong del.rl-del").innerText(), "Atlas");
  assert.equal(await first.locator("strong ins.rl-ins").innerText(), "Meridian");
  assert.equal(await first.locator("h1").innerText(), "Meeting 1");
  await docsShot(page, "redline-2-run-document", "redline-run");

  // Decided where it is read: the engine has it, and the note is redrawn.
  await hoverChange(page, first.locator("ins.rl-ins"), "run-document-bar");
  await page.getByTestId("run-document-accept").click();
  await first.getByText("0 pending").waitFor();
  await first.locator("ins.rl-ins").waitFor({ state: "detached" });
  const hunk = (await api(server, "/api/files/content?path=Docs/Meeting 1.md")).hunks[0];
  assert.equal(hunk.status, "accepted");
  assert.equal(disk(dir, "Docs/Meeting 1.md").includes("Atlas"), true, "nothing written before a save");

  // Exported: one HTML file with every note's path and its marks.
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("run-document-export").click()]);
  const file = await download.path();
  const { readFileSync } = await import("node:fs");
  const html = readFileSync(file, "utf8");
  assert.match(html, /<h1>Atlas is Meridian now<\/h1>/);
  for (const n of [2, 3]) assert.ok(html.includes(`Docs/Meeting ${n}.md`), `note ${n} in the export`);
  assert.equal((html.match(/<del class="rl-del"/g) ?? []).length, 2, "the two pending changes struck");
  assert.ok(!html.includes("<script"), "no script in the export");
  await page.keyboard.press("Escape");
  await doc.waitFor({ state: "detached" });
});

test("your own typing inside a change reads as yours in the redline, the agent's words as its change's", async () => {
  await page.locator('[data-testid="tree-file"][data-path="Docs/Meeting 2.md"]').click();
  await page.getByTestId("open-path").filter({ hasText: "Meeting 2.md" }).waitFor();
  if ((await redline().count()) > 0) await page.getByTestId("redline-toggle").click();
  // Typed inside the agent's word, in the source view (typed beside it, a
  // word is the user's own and stays whatever is decided).
  const word = page.locator(".cm-content [data-testid=word-added]").filter({ hasText: "Meridian" });
  const box = await word.boundingBox();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await page.keyboard.type("-");
  // The engine has it (an edit reaches it after a moment), as typed inside the change.
  let file;
  await waitFor(page, async () => {
    file = await api(server, "/api/files/content?path=Docs/Meeting 2.md");
    return /\*\*Mer[a-z]*-[a-z]*an\*\*/.test(file.text);
  }, "the typing in the engine");
  assert.ok(file.hunks[0].typed_inside, `typed inside the change: ${JSON.stringify(file.hunks)}`);
  assert.match(file.hunks[0].agent_text ?? "", /\*\*Meridian\*\*/, "the change's words without the typing");
  await page.keyboard.press("Alt+KeyR");
  await redline().waitFor();
  const note = redline().locator(".redline-note");
  await note.locator("ins.rl-own").waitFor();
  // The word the user changed is theirs; the change's struck word keeps its controls.
  assert.match((await note.locator("ins.rl-own").innerText()).trim(), /^Mer[a-z]*-[a-z]*an$/);
  assert.equal(await note.locator("ins.rl-own").getAttribute("data-hunk"), null, "no change's controls on your words");
  assert.equal(await note.locator("strong del.rl-del").innerText(), "Atlas");
  assert.equal(await note.locator("strong del.rl-del").getAttribute("data-hunk"), file.hunks[0].hunk_id);
  await page.getByTestId("redline-toggle").click();
  await redline().waitFor({ state: "detached" });
});
test("Alt+R pressed right after a click on a note, while it loads, turns that note rendered, not the one shown before", async () => {
  await page.locator('[data-testid="tree-file"][data-path="Docs/Meeting 1.md"]').click();
  await page.getByTestId("open-path").filter({ hasText: "Meeting 1.md" }).waitFor();
  if ((await redline().count()) > 0) await page.getByTestId("redline-toggle").click();
  await page.locator(".cm-content").waitFor();
  // The note takes a second and a half to load, as on a busy machine.
  let delayed = 0;
  await page.route(/\/api\/files\/content\?path=Budget(%20|\+)2027\.md/, async (route) => {
    delayed++;
    await new Promise((r) => setTimeout(r, 1500));
    await route.continue();
  });
  await page.locator('[data-testid="tree-file"][data-path="Budget 2027.md"]').click();
  await page.keyboard.press("Alt+KeyR");
  assert.equal(await page.getByTestId("open-path").getAttribute("data-path"), "Docs/Meeting 1.md", "still loading when the key was pressed");
  await page.getByTestId("open-path").filter({ hasText: "Budget 2027.md" }).waitFor();
  await redline().locator(".redline-note h1").filter({ hasText: "Budget 2027" }).waitFor();
  assert.equal(delayed, 1, "the note was fetched, slowly");
  await page.unroute(/\/api\/files\/content/);
  // The note shown before stays as it was read: its source.
  await page.locator('[data-testid="tree-file"][data-path="Docs/Meeting 1.md"]').click();
  await page.getByTestId("open-path").filter({ hasText: "Meeting 1.md" }).waitFor();
  await page.locator(".cm-content").waitFor();
  assert.equal(await redline().count(), 0, "Meeting 1 still reads as source");
});
