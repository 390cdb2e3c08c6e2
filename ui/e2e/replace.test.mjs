// Find and replace across the vault, in a real browser: Ctrl+Shift+H from
// inside a note opens the panel with the keyboard in it; the preview counts
// what would change and what stays (code, links); staged, it is a job of
// its own to review, and the disk changes only at the save. The same panel
// renames a tag everywhere (nested tags and the tags property too).

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { api, browser, disk, serve, shot, vault, waitFor } from "./support.mjs";

const note = (i) => `# Note ${i}\n\nAtlas ships in week ${i}; see [[Atlas]].\n\n\`Atlas.run()\`\n`;
const renamed = (i) => `# Note ${i}\n\nMeridian ships in week ${i}; see [[Atlas]].\n\n\`Atlas.run()\`\n`;
const NOTES = 6;
const tagged = (tag) => `---\ntags: [${tag}, work]\n---\n# Tagged\n\n#${tag}/q1 and #${tag}, not \`#atlas\`.\n`;
const TAGGED = 3;

let dir, server, chrome, page;
before(async () => {
  const files = { "Atlas.md": "# Atlas\n", "Plans/Plan.md": "# Plan\n\n## Étapes\n\nUne, deux.\n", "Journal/Café.md": "Voir [[Plan#Étapes]].\n" };
  for (let i = 0; i < NOTES; i++) files[`Notes/${i}.md`] = note(i);
  for (let i = 0; i < TAGGED; i++) files[`Tagged/${i}.md`] = tagged("atlas");
  dir = vault(files);
  server = await serve(dir, []);
  ({ browser: chrome, page } = await browser());
});
after(async () => {
  await chrome?.close();
  await server?.stop();
});

test("a replacement across the vault is previewed, staged as a job, and written only at the save", async () => {
  await page.goto(server.url);
  await page.locator('[data-testid="tree-file"][data-path="Notes/0.md"]').click().catch(async () => {
    await page.locator('[data-testid="tree-folder"]').filter({ hasText: "Notes" }).click();
    await page.locator('[data-testid="tree-file"][data-path="Notes/0.md"]').click();
  });
  await page.getByTestId("open-path").filter({ hasText: "Notes/0.md" }).waitFor();
  // From inside the note: the panel takes the keyboard, the note gets nothing.
  await page.locator(".cm-content").click();
  await page.keyboard.press("Control+Shift+KeyH");
  await page.getByTestId("replace-panel").waitFor();
  await page.keyboard.type("Atlas");
  await page.getByTestId("replace-with").fill("Meridian");
  await page.getByTestId("replace-word").check();
  await page.getByTestId("replace-folder").fill("Notes");
  const summary = page.getByTestId("replace-summary");
  await summary.filter({ hasText: `${NOTES} change(s) in ${NOTES} note(s)` }).waitFor();
  assert.match(await summary.innerText(), /left alone: .*in code.*in link targets|left alone: .*in link targets.*in code/);
  assert.equal(await page.getByTestId("replace-sample").count(), 5, "a few samples");
  assert.match(await page.getByTestId("replace-sample").first().innerText(), /Meridian ships in week 0/);
  await shot(page, "replace-1-preview");
  await page.getByTestId("replace-with").press("Control+Enter");
  await page.getByTestId("replace-panel").waitFor({ state: "detached" });
  await page.getByTestId("review-count").filter({ hasText: new RegExp(`^${NOTES}$`) }).waitFor();
  const review = await api(server, "/api/review");
  assert.equal(review.jobs[0].source, "operations");
  assert.equal(review.jobs[0].instruction, "Replace “Atlas” with “Meridian”");
  for (let i = 0; i < NOTES; i++) assert.equal(disk(dir, `Notes/${i}.md`), note(i), "nothing written before review");
  assert.equal(disk(dir, "Notes/0.md"), note(0), "no stray key reached the note");
  // The job reads as what it is: its changes counted as the review counts
  // them, what it left alone beside, and it awaits review (no "Running").
  const proposed = page.getByTestId("timeline-note").filter({ hasText: `Proposed ${NOTES} change(s) in ${NOTES} note(s)` });
  await proposed.waitFor();
  assert.match(await proposed.innerText(), /occurrence\(s\) in \d+ note\(s\) · left alone: .*in code/);
  await page.locator('[data-testid="job-status"][data-status="awaiting_review"]').waitFor();
  assert.equal(await page.getByTestId("budget").innerText(), "No model ran");

  // Accepted as one pattern and saved: prose renamed, code and links kept.
  const occurrence = page.locator('[data-testid="review-item"]').first();
  const opened = await occurrence.getAttribute("data-path");
  await occurrence.click();
  await page.getByTestId("open-path").filter({ hasText: opened }).waitFor();
  await page.keyboard.press("Alt+Shift+KeyY");
  await page.getByTestId("review-count").filter({ hasText: /^0$/ }).waitFor();
  await page.getByTestId("save-all").click();
  await waitFor(page, async () => disk(dir, "Notes/5.md") === renamed(5), "the save");
  for (let i = 0; i < NOTES; i++) assert.equal(disk(dir, `Notes/${i}.md`), renamed(i));
  await shot(page, "replace-2-saved");
});

test("a tag renamed from the same panel: nested tags and the tags property, never code", async () => {
  await page.keyboard.press("Control+Shift+KeyH");
  await page.getByTestId("replace-panel").waitFor();
  await page.getByTestId("replace-kind-tag").click();
  await page.keyboard.type("#atlas");
  await page.getByTestId("replace-with").fill("meridian");
  // Three tags a note (in the property, nested, and alone) on two lines: the
  // preview counts the changes as the review will, and the tags beside them.
  await page.getByTestId("replace-summary").filter({ hasText: `${TAGGED * 2} change(s) in ${TAGGED} note(s) (${TAGGED * 3} occurrences)` }).waitFor();
  assert.match(await page.getByTestId("replace-sample").first().innerText(), /tags: \[meridian, work\]/);
  await page.getByTestId("replace-with").press("Control+Enter");
  await page.getByTestId("replace-panel").waitFor({ state: "detached" });
  // Two hunks a note: the property's line and the body's; the notice says so.
  await page.getByTestId("review-count").filter({ hasText: new RegExp(`^${TAGGED * 2}$`) }).waitFor();
  assert.match(await page.getByTestId("notice").innerText(), new RegExp(`${TAGGED * 2} change\\(s\\) in ${TAGGED} note\\(s\\)`));
  const review = await api(server, "/api/review");
  assert.equal(review.jobs.at(-1).instruction, "Rename the tag #atlas to #meridian");
  for (let i = 0; i < TAGGED; i++) assert.equal(disk(dir, `Tagged/${i}.md`), tagged("atlas"), "nothing written before review");
  const occurrence = page.locator('[data-testid="review-item"]').first();
  const opened = await occurrence.getAttribute("data-path");
  await occurrence.click();
  await page.getByTestId("open-path").filter({ hasText: opened }).waitFor();
  // One pattern: the property's lines and the body's make the same change
  // (a line with the tag twice too), decided with one key.
  assert.deepEqual(review.jobs.at(-1).patterns.map((p) => p.pattern.hunks), [TAGGED * 2]);
  await page.keyboard.press("Alt+Shift+KeyY");
  await page.getByTestId("review-count").filter({ hasText: /^0$/ }).waitFor();
  await page.getByTestId("save-all").click();
  await waitFor(page, async () => disk(dir, `Tagged/${TAGGED - 1}.md`) !== tagged("atlas"), "the save");
  for (let i = 0; i < TAGGED; i++) assert.equal(disk(dir, `Tagged/${i}.md`), tagged("meridian").replace("`#meridian`", "`#atlas`"));
});

test("a heading renamed in one folder: the preview lists the notes outside it whose links follow", async () => {
  await page.keyboard.press("Control+Shift+KeyH");
  await page.getByTestId("replace-panel").waitFor();
  await page.getByTestId("replace-find").fill("Étapes");
  await page.getByTestId("replace-with").fill("Phases");
  await page.getByTestId("replace-folder").fill("Plans");
  await page.getByTestId("replace-summary").filter({ hasText: "1 change(s) in 1 note(s)" }).waitFor();
  const follow = page.getByTestId("replace-links-follow");
  await follow.waitFor();
  assert.match(await follow.innerText(), /Outside the scope, 1 note\(s\) change too/);
  assert.match(await follow.innerText(), /Journal\/Café\.md \(1 link\(s\)\)/);
  await shot(page, "replace-4-links-follow");
  await page.keyboard.press("Escape");
  await page.getByTestId("replace-panel").waitFor({ state: "detached" });
  assert.equal(disk(dir, "Journal/Café.md"), "Voir [[Plan#Étapes]].\n", "a preview writes nothing");
});
