// Temporary profiler (not committed): CPU profile of the run document's first screen and the big note's warm render.
import { writeFileSync } from "node:fs";
import { api, browser, serve, vault } from "./support.mjs";
const NOTES = 1000, BIG = 5000;
const files = {};
for (let i = 0; i < NOTES; i++) files[`Notes/n${String(i).padStart(4, "0")}.md`] = `# Note ${i}\n\nAtlas met café ${i} and [[n${String((i + 1) % NOTES).padStart(4, "0")}]].\n\n- item one\n- item two\n`;
const big = [];
for (let i = 0; i < BIG; i++) {
  if (i % 50 === 0) big.push(`## Section ${i / 50}`);
  else if (i % 25 === 3) big.push(`Line ${i} of the plan: Atlas ships, naïve ${i}.`);
  else if (i % 7 === 0) big.push("");
  else big.push(`Line ${i} of the plan, with some words: café ${i * 7}.`);
}
files["Big.md"] = `${big.join("\n")}\n`;
const dir = vault(files);
const server = await serve(dir, []);
const { browser: chrome, page } = await browser();
await page.goto(server.url);
const scope = { folders: [], glob: null, containing: null, property: null, files: [] };
const op = { op: "replace_text", find: "Atlas", replace: "Meridian", regex: false, whole_word: true, case_sensitive: true, scope, include: [] };
await api(server, "/api/operations", "POST", { operations: [op] });
await page.getByTestId("review-count").filter({ hasText: "1200" }).waitFor({ timeout: 60_000 });
const cdp = await page.context().newCDPSession(page);
await cdp.send("Profiler.enable");
async function profile(name, act, done) {
  await cdp.send("Profiler.start");
  const t = Date.now();
  await act();
  await done.waitFor({ timeout: 60000 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
  const ms = Date.now() - t;
  const { profile } = await cdp.send("Profiler.stop");
  writeFileSync(`/tmp/prof/${name}.cpuprofile`, JSON.stringify(profile));
  console.log(name, ms, "ms");
}
await page.keyboard.press("Control+KeyP");
await page.keyboard.type("Big.md");
await page.locator('[data-testid="quick-open-item"][data-path="Big.md"]').waitFor();
await page.keyboard.press("Enter");
await page.getByTestId("open-path").filter({ hasText: "Big.md" }).waitFor();
await page.locator(".cm-content").waitFor();
const marks = page.locator('[data-testid="redline"] .redline-note del.rl-del');
await profile("cold", () => page.getByTestId("redline-toggle").click(), marks.first());
for (let k = 0; k < 3; k++) {
  await page.keyboard.press("Alt+KeyR");
  await page.getByTestId("redline").waitFor({ state: "detached" });
  await profile(`warm${k}`, () => page.keyboard.press("Alt+KeyR"), marks.first());
}
await page.keyboard.press("Escape");
const firstNote = page.locator('[data-testid="run-note"] article.redline-note').first();
await profile("doc", () => page.keyboard.press("Alt+Shift+KeyR"), firstNote);
await chrome.close();
await server.stop();
