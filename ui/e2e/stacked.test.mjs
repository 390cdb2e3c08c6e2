// Decisions in any order on stacked jobs, in a real browser, on the demo
// vault. The rename puts "Meridian" on a line; the follow-up, before any
// decision, dates that very line and rewrites the website's new name. Each
// box strikes through the text before its hunk, and says apart what
// rejecting it would leave when a later hunk changed the same line. Then:
// - the rename of the plan is rejected under the pending date, at once (it
//   does not depend on it): the line reads "Atlas 2.0 ships on 9 September",
//   and is saved with the date accepted, bytes checked;
// - the website's rename, which the follow-up rewrote, is a dependent pair:
//   rejecting the rename says first that it also rejects the follow-up's
//   change, is cancelled, then confirmed, and undone as one step.

import assert from "node:assert/strict";
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { api as get, browser, call, disk, docsShot, replaceLine, root, serve, shot, waitFor as until } from "./support.mjs";

const PLAN = "Projects/Q3 Launch Plan.md";
const SITE = "Projects/Website Redesign.md";
const LINE = "Atlas 2.0 ships in the third quarter. The launch depends on the";
const RENAMED = LINE.replace("Atlas", "Meridian");
const DATED = RENAMED.replace("in the third quarter", "on 9 September");
const SITE_LINE = "The Atlas website needs a new landing page before the Q3 launch.";
const SITE_RENAMED = SITE_LINE.replace("Atlas", "Meridian");
const SITE_AGAIN = SITE_LINE.replace("Atlas", "MeridianWeb");

const RENAME = "Rename the Atlas project to Meridian";
const DATE = "Also date the launch, and call the site MeridianWeb";
const TURNS = [
  call("propose_edits", { edits: [replaceLine(PLAN, 8, LINE, RENAMED), replaceLine(SITE, 9, SITE_LINE, SITE_RENAMED)], summary: "Renamed." }),
  call("propose_edits", { edits: [replaceLine(PLAN, 8, RENAMED, DATED), replaceLine(SITE, 9, SITE_RENAMED, SITE_AGAIN)], summary: "Dated." }),
];

let dir, server, chrome, page;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), "redline-e2e-demo-"));
  cpSync(join(root, "fixtures/vaults/demo"), dir, { recursive: true });
  server = await serve(dir, TURNS);
  ({ browser: chrome, page } = await browser());
});
after(async () => {
  await chrome?.close();
  await server?.stop();
});

const item = (hunk) => page.locator(`[data-testid="review-item"][data-hunk-id="${hunk}"]`);
const button = (hunk, kind) => page.locator(`[data-testid="hunk-${kind}"][data-hunk-id="${hunk}"]`);
const content = (path) => get(server, `/api/files/content?path=${encodeURIComponent(path)}`);
const statusOf = async (path, hunk) => (await content(path)).hunks.find((h) => h.hunk_id === hunk)?.status;

async function open(path, hunk) {
  await item(hunk).click();
  await page.getByTestId("open-path").filter({ hasText: path }).waitFor();
}

test("any hunk of stacked jobs is decided in any order; a dependent pair is shown, confirmed and undone", async () => {
  const before = { plan: disk(dir, PLAN), site: disk(dir, SITE) };
  await page.goto(server.url);
  await page.getByTestId("instruction").fill(RENAME);
  await page.getByTestId("run").click();
  await page.getByTestId("review-count").filter({ hasText: /^2$/ }).waitFor();
  await page.getByTestId("instruction").fill(DATE);
  await page.getByTestId("run").click();
  await page.getByTestId("review-count").filter({ hasText: /^4$/ }).waitFor();
  const [rename, date] = (await get(server, "/api/review")).jobs;
  const hunkIn = (group, path) => group.hunks.find((h) => h.path === path).hunk_id;
  // Two stacked jobs on one line, the later built on the earlier: the
  // README's picture (REDLINE_DOCS_IMAGES=1 retakes docs/images/review.png).
  await open(SITE, hunkIn(rename, SITE));
  await docsShot(page, "stacked-0-two-jobs", "review");

  // The rename of the plan, rejected under the pending date: no question,
  // no refusal; the date stays.
  const planRename = hunkIn(rename, PLAN);
  await open(PLAN, planRename);
  // Its box strikes through the line as it was before it, never the later
  // job's words; what rejecting it leaves (the date kept) is said apart.
  const box = page.locator(`.cm-hunk[data-hunk-id="${planRename}"]`);
  assert.equal((await box.locator(".cm-hunk-removed").innerText()).trim(), LINE);
  assert.equal(await box.getByTestId("hunk-reject-leaves").innerText(), `Rejecting it leaves: ${LINE.replace("in the third quarter", "on 9 September")}`);
  const dateBox = page.locator(`.cm-hunk[data-hunk-id="${hunkIn(date, PLAN)}"]`);
  assert.equal((await dateBox.locator(".cm-hunk-removed").innerText()).trim(), RENAMED);
  assert.equal(await dateBox.getByTestId("hunk-reject-leaves").count(), 0, "rejecting the date gives back the line before it");
  await button(planRename, "reject").click();
  await item(planRename).waitFor({ state: "detached" });
  await until(page, async () => (await content(PLAN)).text.includes("\nAtlas 2.0 ships on 9 September. The launch depends on the\n"), "the date kept under the rejected rename");
  assert.equal(await page.getByTestId("decision-dialog").count(), 0, "nothing to confirm: the date does not build on the name");
  const planDate = hunkIn(date, PLAN);
  await button(planDate, "accept").click();
  await item(planDate).waitFor({ state: "detached" });
  await shot(page, "stacked-1-rename-rejected-under-the-date");

  // The site's rename was rewritten by the follow-up: rejecting it asks first.
  const siteRename = hunkIn(rename, SITE);
  const siteAgain = hunkIn(date, SITE);
  await open(SITE, siteRename);
  await button(siteRename, "reject").click();
  const dialog = page.getByTestId("decision-dialog");
  await dialog.waitFor();
  assert.deepEqual(await page.getByTestId("decision-moved").evaluateAll((els) => els.map((e) => e.dataset.hunkId)), [siteAgain]);
  assert.match(await page.getByTestId("decision-carried").innerText(), /also rejects 1 later change/);
  await shot(page, "stacked-2-cascade-shown");
  // Cancelled: nothing moved.
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "detached" });
  assert.equal(await statusOf(SITE, siteRename), "pending");
  assert.equal(await statusOf(SITE, siteAgain), "pending");
  // Confirmed, with a reason: both rejected; the line is as it was.
  await button(siteRename, "reject").click();
  await dialog.waitFor();
  await page.getByTestId("decision-reason").fill("the site keeps its name");
  await page.getByTestId("decision-confirm").click();
  await dialog.waitFor({ state: "detached" });
  await until(page, async () => (await statusOf(SITE, siteAgain)) === "rejected", "the follow-up's change rejected with it");
  assert.equal(await statusOf(SITE, siteRename), "rejected");
  assert.ok((await content(SITE)).text.includes(`\n${SITE_LINE}\n`));
  await item(siteAgain).waitFor({ state: "detached" });
  // Undone as one step.
  await page.locator(".cm-content").click();
  await page.keyboard.press("Alt+U");
  await until(page, async () => (await statusOf(SITE, siteRename)) === "pending" && (await statusOf(SITE, siteAgain)) === "pending", "both pending again");
  await until(page, async () => (await content(SITE)).text.includes(`\n${SITE_AGAIN}\n`), "the follow-up's text back");
  await item(siteAgain).waitFor();
  await shot(page, "stacked-3-undone");

  // Accepting the follow-up's change accepts what it stands on, said first.
  await open(SITE, siteAgain);
  await button(siteAgain, "accept").click();
  await dialog.waitFor();
  assert.match(await page.getByTestId("decision-carried").innerText(), /also accepts 1 earlier change/);
  await page.keyboard.press("Enter");
  await dialog.waitFor({ state: "detached" });
  await page.getByTestId("review-count").filter({ hasText: /^0$/ }).waitFor();

  // Saved: the bytes are the two texts with exactly the decided changes.
  await page.getByTestId("save-all").click();
  await until(page, () => disk(dir, PLAN) === before.plan.replace(`\n${LINE}\n`, `\n${LINE.replace("in the third quarter", "on 9 September")}\n`), "the plan saved: date, no rename");
  await until(page, () => disk(dir, SITE) === before.site.replace(`\n${SITE_LINE}\n`, `\n${SITE_AGAIN}\n`), "the site saved with both changes");
});
