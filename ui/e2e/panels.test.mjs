// The rest of the window in a real browser: a conflict with another
// program's save, sessions, context rows, settings (a write-only key, a
// local Ollama found and offered) and the shortcuts overlay.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { api, browser, call, disk, redline, scriptedRemote, serve, shot, vault } from "./support.mjs";

const NOTE = "# Plan\n\nStatus: draft\nOwner: Ann\n";

let dir, server, chrome, page, ollama;
before(async () => {
  // A stand-in for Ollama's /v1/models on a free port (the real one is not installed here).
  ollama = createServer((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.url !== "/v1/models") res.statusCode = 404;
    res.end(req.url === "/v1/models" ? JSON.stringify({ object: "list", data: [{ id: "llama3.2:3b", object: "model", created: 1731000000, owned_by: "library" }] }) : "{}");
  });
  await new Promise((ok) => ollama.listen(0, "127.0.0.1", ok));
  dir = vault({ "plan.md": NOTE, "other.md": "Other note\n" });
  const edit = { file_path: "plan.md", operation: "replace", start_line: 3, end_line: 3, new_text: "Status: final", old_text: null, rationale: null };
  const copyEditor = `[[agents]]\nagent_id = "copyedit"\ndisplay_name = "Copy editor"\ndescription = "Fixes typos; never changes meaning."\n`;
  server = await serve(
    dir,
    [call("propose_edits", { edits: [edit], summary: "Final." })],
    { REDLINE_LOCAL_SERVERS: `ollama=http://127.0.0.1:${ollama.address().port}/v1` },
    (url) => scriptedRemote(url) + copyEditor,
  );
  ({ browser: chrome, page } = await browser());
  await page.goto(server.url);
  await page.getByTestId("tree-file").first().waitFor();
});
after(async () => {
  await chrome?.close();
  await server?.stop();
  ollama?.close();
});

test("another program's save conflicts with a pending hunk; both versions are shown; keeping mine saves mine", async () => {
  await page.getByTestId("instruction").fill("Finish the plan");
  await page.getByTestId("run").click();
  await page.getByTestId("review-count").filter({ hasText: /^1$/ }).waitFor();
  await page.getByTestId("review-item").click();
  await page.locator('[data-testid="hunk-accept"]').waitFor();

  writeFileSync(join(dir, "plan.md"), `${NOTE}Added in another editor.\n`);
  await page.getByTestId("conflict").waitFor();
  await page.getByTestId("conflict").locator("summary").click();
  assert.match(await page.getByTestId("disk-text").innerText(), /Added in another editor/);
  assert.match(await page.getByTestId("editor").innerText(), /Status: final/, "the buffer keeps the hunk");
  await shot(page, "panels-1-conflict");

  await page.getByTestId("keep-mine").click();
  await page.getByTestId("conflict").waitFor({ state: "detached" });
  await page.locator('[data-testid="hunk-accept"]').click();
  await page.keyboard.press("Control+KeyS");
  await page.getByTestId("dirty-marker").waitFor({ state: "detached" });
  assert.equal(disk(dir, "plan.md"), NOTE.replace("draft", "final"));
});

test("sessions: titled by their first request, new with an agent, rename, switch, delete", async () => {
  const options = () => page.getByTestId("session-select").locator("option").allInnerTexts();
  const before = await options();
  assert.deepEqual(before, ["Finish the plan"], "the first request titles the session, in full");
  const width = await page.getByTestId("session-select").evaluate((e) => e.getBoundingClientRect().width);
  assert.ok(width > 250, `the picker has room for a title (${width}px)`);
  await page.getByTestId("new-session").click();
  const menu = page.getByTestId("agent-menu");
  await menu.getByText("Fixes typos; never changes meaning.").waitFor();
  await shot(page, "panels-2-agents");
  await menu.getByTestId("agent-option").filter({ hasText: "Copy editor" }).click();
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="session-select"] option').length === n, before.length + 1);
  await page.getByTestId("session-agent").filter({ hasText: "Agent: Copy editor" }).waitFor();
  await page.getByRole("button", { name: "Rename" }).click();
  await page.getByTestId("session-name").fill("Second thoughts");
  await page.getByRole("button", { name: "Rename" }).click();
  await page.getByTestId("session-select").locator("option", { hasText: "Second thoughts" }).waitFor({ state: "attached" });
  assert.equal(await page.getByTestId("job-status").count(), 0, "a new session has no job");
  await page.getByTestId("session-select").selectOption({ index: (await options()).indexOf(before[0]) });
  await page.getByTestId("job-status").waitFor();
  await page.getByTestId("session-select").selectOption({ label: "Second thoughts" });
  page.once("dialog", (d) => d.accept());
  await page.getByTestId("delete-session").click();
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="session-select"] option').length === n, before.length);
  assert.ok(!(await options()).includes("Second thoughts"));
});

test("context rows: the selection and a file, pinned or not, removed", async () => {
  await page.locator('[data-testid="tree-file"][data-path="other.md"]').click();
  await page.getByTestId("open-path").filter({ hasText: "other.md" }).waitFor();
  await page.getByTestId("editor").click();
  await page.keyboard.press("Control+KeyA");
  await page.keyboard.press("Alt+KeyL");
  await page.getByTestId("context-row").filter({ hasText: /other\.md:1–/ }).waitFor();
  await page.getByTestId("add-file").click();
  assert.equal(await page.getByTestId("context-row").count(), 2);
  const pin = page.getByTestId("context-row").nth(1).getByRole("button", { name: /Pin/ });
  await pin.click();
  assert.equal(await pin.getAttribute("aria-pressed"), "false", "unpinned: for the next run only");
  await shot(page, "panels-2-context");
  await page.getByTestId("context-row").nth(1).getByRole("button", { name: "Remove" }).click();
  assert.equal(await page.getByTestId("context-row").count(), 1);
});

test("settings: the key is write-only and shown as a hint; a local Ollama is offered", async () => {
  await page.getByTestId("open-settings").click();
  await page.getByTestId("found-server").filter({ hasText: "Ollama is running at" }).waitFor();
  await page.getByTestId("server-model").filter({ hasText: "llama3.2:3b" }).waitFor();
  // Anthropic's key: the OpenAI one comes from the environment here, which wins over a stored one.
  await page.getByTestId("remote-provider").selectOption("anthropic");
  await page.getByTestId("api-key").fill("sk-e2e-secret-9876");
  await page.getByTestId("server-model").click();
  assert.equal(await page.getByTestId("agent-mode").inputValue(), "local");
  await page.getByTestId("settings-save").click();
  await page.getByTestId("notice").filter({ hasText: "Settings saved" }).waitFor();
  assert.equal(await page.getByTestId("api-key").inputValue(), "", "the key leaves the form");
  assert.match(await page.getByTestId("api-key").getAttribute("placeholder"), /…9876/);
  const html = await page.content();
  assert.ok(!html.includes("sk-e2e-secret"), "the key is nowhere in the page");
  const saved = readFileSync(server.config, "utf8");
  assert.match(saved, /llama3\.2:3b/);
  assert.ok(!saved.includes("sk-e2e-secret"), "nor in the config file");
  await shot(page, "panels-3-settings");
  await page.keyboard.press("Escape");
  await page.getByTestId("settings").waitFor({ state: "detached" });
});

test("settings: a limit out of its range or a base URL that is no web address is marked in words, and nothing is saved", async () => {
  await page.getByTestId("open-settings").click();
  const calls = page.getByTestId("limit-max_tool_calls_per_job");
  const before = readFileSync(server.config, "utf8");
  for (const [typed, said] of [
    ["-5", "Tool calls a job may make must be a whole number from 1 to 10,000; -5 is not"],
    ["1e23", "1e23 is not"],
    ["1000000000000", "1000000000000 is not"],
  ]) {
    await calls.fill(typed);
    const error = page.getByTestId("limit-error-max_tool_calls_per_job");
    const text = await error.textContent();
    assert.ok(text.includes(said), text);
    assert.equal(await calls.getAttribute("aria-invalid"), "true");
    await page.getByTestId("settings-save").click();
    await page.getByTestId("notice").filter({ hasText: "Not saved: Tool calls a job may make" }).last().waitFor();
    assert.equal(readFileSync(server.config, "utf8"), before, "nothing written");
  }
  await calls.fill("20");
  assert.equal(await page.getByTestId("limit-error-max_tool_calls_per_job").count(), 0);
  // A default above its cap, in range each, is marked and not sent; the
  // engine refuses it in the same words.
  const searchDefault = page.getByTestId("limit-max_search_results_default");
  const cap = await page.getByTestId("limit-max_search_results_cap").inputValue();
  const wasDefault = await searchDefault.inputValue();
  await page.getByTestId("limit-max_search_results_cap").fill("50");
  await searchDefault.fill("80");
  const capSaid = "Search results by default (80) may not be more than most search results one search may ask for (50)";
  assert.equal(await page.getByTestId("limit-error-max_search_results_default").textContent(), capSaid);
  await page.getByTestId("settings-save").click();
  await page.getByTestId("notice").filter({ hasText: `Not saved: ${capSaid}` }).last().waitFor();
  assert.equal(readFileSync(server.config, "utf8"), before, "nothing written");
  await assert.rejects(api(server, "/api/settings", "PUT", { limits: { max_search_results_default: 80, max_search_results_cap: 50 } }), (e) => e.message.includes(capSaid));
  await searchDefault.fill(wasDefault);
  await page.getByTestId("limit-max_search_results_cap").fill(cap);
  // A provider's base URL that is no web address: marked, named, not sent.
  const url = page.getByTestId("local-base-url");
  const was = await url.inputValue();
  await url.fill("file:///etc");
  const said = await page.getByTestId("local-base-url-error").textContent();
  assert.equal(said, "Local model: the base URL must start with http:// or https://; `file:///etc` does not");
  assert.equal(await url.getAttribute("aria-invalid"), "true");
  await page.getByTestId("settings-save").click();
  await page.getByTestId("notice").filter({ hasText: "Not saved: Local model" }).last().waitFor();
  assert.equal(readFileSync(server.config, "utf8"), before, "nothing written");
  await url.fill(was);
  await page.getByTestId("settings-save").click();
  await page.getByTestId("notice").filter({ hasText: "Settings saved" }).last().waitFor();
  assert.match(readFileSync(server.config, "utf8"), /max_tool_calls_per_job = 20/);
  await page.keyboard.press("Escape");
  await page.getByTestId("settings").waitFor({ state: "detached" });
});

test("F1 lists every shortcut", async () => {
  await page.keyboard.press("F1");
  const help = page.getByTestId("help");
  await help.waitFor();
  for (const keys of ["Ctrl+S", "Alt+Y", "Alt+N", "Alt+U", "Alt+J", "Alt+K", "Alt+A"]) await help.getByText(keys, { exact: true }).waitFor();
  await help.getByTestId("help-leave-editor").waitFor();
  // Which build this is, as `redline --version` says it.
  const version = execFileSync(redline, ["--version"], { encoding: "utf8" }).trim().replace(/^redline /, "");
  assert.equal(await help.getByTestId("about").innerText(), `Redline ${version}`);
  await shot(page, "panels-4-help");
  await page.keyboard.press("Escape");
  await help.waitFor({ state: "detached" });
});

test("the keyboard leaves a note by Esc then Tab, as the help says, and the note is unchanged", async () => {
  await page.locator('[data-testid="tree-file"][data-path="other.md"]').click();
  await page.getByTestId("open-path").filter({ hasText: "other.md" }).waitFor();
  await page.locator(".cm-content").click();
  const inEditor = () => page.evaluate(() => document.activeElement?.closest(".cm-editor") !== null);
  assert.ok(await inEditor(), "the note has the keyboard");
  await page.keyboard.press("Escape");
  await page.keyboard.press("Tab");
  assert.equal(await inEditor(), false, "Esc then Tab moved the keyboard out of the note");
  await page.keyboard.type("stray");
  assert.equal((await page.locator(".cm-content").innerText()).trim(), "Other note", "no key reached the note");
  assert.equal(disk(dir, "other.md"), "Other note\n");
});

test("the theme follows the system", async () => {
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await page.emulateMedia({ colorScheme: "light" });
  const light = await background();
  await page.emulateMedia({ colorScheme: "dark" });
  const dark = await background();
  assert.notEqual(light, dark);
  await page.locator('[data-testid="tree-file"][data-path="plan.md"]').click();
  await shot(page, "panels-5-dark");
  await page.emulateMedia({ colorScheme: "light" });
});

test("the files pane widens by dragging its edge or with the arrow keys, and keeps its width", async () => {
  const width = () => page.locator("nav.left").evaluate((el) => el.getBoundingClientRect().width);
  const start = await width();
  const handle = page.getByTestId("pane-resizer");
  const box = await handle.boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + 200);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 150, box.y + 200, { steps: 5 });
  await page.mouse.up();
  assert.ok(Math.abs((await width()) - (start + 150)) <= 2, `dragged 150 px: ${start} → ${await width()}`);
  await handle.focus();
  await page.keyboard.press("ArrowLeft");
  assert.ok(Math.abs((await width()) - (start + 134)) <= 2, "an arrow key moves it 16 px");
  await page.reload();
  await page.getByTestId("tree-file").first().waitFor();
  assert.ok(Math.abs((await width()) - (start + 134)) <= 2, "kept after a reload");
  // Back to where it was, for the tests after this one.
  await page.evaluate(() => localStorage.removeItem("redline.leftWidth"));
  await page.reload();
  await page.getByTestId("tree-file").first().waitFor();
});
