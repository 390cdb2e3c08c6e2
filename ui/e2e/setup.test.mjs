// First run in a real browser with nothing set up: no key anywhere, the
// default OpenAI provider. The sidebar shows the setup card instead of a
// failed job; the stand-in llama.cpp server it found (the scripted model,
// answering /v1/models as llama.cpp does) is picked and runs a job; then,
// back on a provider with no key, a key typed into the card is kept out of
// the page and the configuration file.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { api, browser, call, disk, serve, shot, vault, waitFor } from "./support.mjs";

const NOTE = "# Plan\n\nStatus: draft\n";
const DRAFT = "# Brouillon\n\nÀ relire.\n";
const INDEX = "- [[Draft]]\n- [[Draft#Brouillon|le brouillon]] — café\n";
const SECRET = "sk-e2e-setup-secret-4321";

let dir, server, chrome, page;
before(async () => {
  dir = vault({ "plan.md": NOTE, "Draft.md": DRAFT, "Index.md": INDEX });
  const edit = { file_path: "plan.md", operation: "replace", start_line: 3, end_line: 3, new_text: "Status: final", old_text: null, rationale: null };
  server = await serve(
    dir,
    [call("propose_edits", { edits: [edit], summary: "Final." })],
    (url) => ({ OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "", REDLINE_LOCAL_SERVERS: `llama_cpp=${url}/v1` }),
    () => "# nothing set up\n",
  );
  ({ browser: chrome, page } = await browser());
  await page.goto(server.url);
  await page.getByTestId("tree-file").first().waitFor();
});
after(async () => {
  await chrome?.close();
  await server?.stop();
});

test("with no model, review is all there: a rename from the tree is reviewed, accepted from its banner and applied", async () => {
  const card = page.getByTestId("setup-card");
  await card.waitFor();
  await page.locator('[data-testid="tree-file"][data-path="Draft.md"]').click();
  await page.getByTestId("editor").getByText("À relire.").waitFor();
  await page.locator(".cm-content").click();
  await page.keyboard.press("F2");
  await page.getByTestId("tree-rename").fill("Drafts/Brouillon final.md");
  await page.getByTestId("tree-rename").press("Enter");
  // The move and its link update (both links, on adjacent lines, in one
  // hunk), reviewed beside the card, in the tree's session.
  await page.getByTestId("review-count").filter({ hasText: /^2$/ }).waitFor();
  await card.waitFor();
  await page.getByTestId("job-review-status").filter({ hasText: "2 hunk(s) to review" }).waitFor();
  assert.equal(await page.getByTestId("review-source").innerText(), "tree");
  assert.equal(await page.getByTestId("session-select").locator("option:checked").innerText(), "Moves and deletions from the tree");
  assert.equal(await page.getByTestId("session-agent").count(), 0, "no agent line naming mcp:files");
  assert.equal(await page.getByTestId("accept-job").count(), 1, "Accept all is offered");
  assert.equal(await page.getByTestId("apply-job").count(), 1, "Apply is offered");
  assert.equal(await page.getByTestId("budget").innerText(), "No model ran");
  await shot(page, "setup-0-no-model-review");
  // Accepted from its banner, the move takes its link updates: the list
  // shows what the engine has pending, no less.
  await page.locator('[data-testid="tree-file"][data-path="Drafts/Brouillon final.md"]').click();
  await page.getByTestId("file-op-accept").click();
  await waitFor(page, async () => {
    const pending = (await api(server, "/api/review")).jobs.flatMap((j) => j.hunks).filter((h) => h.status === "pending").length;
    return (await page.getByTestId("review-item").count()) === pending && Number(await page.getByTestId("review-count").innerText()) === pending;
  }, "the review list agrees with the engine");
  await page.getByTestId("apply-job").click();
  await page.getByTestId("job-status").filter({ hasText: "Completed" }).waitFor();
  assert.equal(disk(dir, "Drafts/Brouillon final.md"), DRAFT);
  assert.equal(disk(dir, "Index.md"), "- [[Brouillon final]]\n- [[Brouillon final#Brouillon|le brouillon]] — café\n");
  assert.equal(await page.getByTestId("instruction").inputValue(), "", "nothing was run");
});

test("with nothing set up, the card offers the server it found, and picking it runs a job", async () => {
  const card = page.getByTestId("setup-card");
  await card.waitFor();
  await card.getByTestId("setup-problems").filter({ hasText: "openai: no API key" }).waitFor();
  // A run asked for now starts nothing: the card stays, the request stays in the box.
  await page.getByTestId("instruction").fill("Finish the plan");
  await page.getByTestId("run").click();
  await card.waitFor();
  assert.equal(await page.locator('[data-testid="job-status"][data-status="failed"]').count(), 0, "no failed job");
  assert.equal(await page.getByTestId("instruction").inputValue(), "Finish the plan");
  const found = card.getByTestId("setup-server").filter({ hasText: "llama.cpp" });
  assert.equal(await found.locator("input").inputValue(), "scripted-model", "its model list fills the field");
  await shot(page, "setup-1-card");
  await found.getByRole("button", { name: "Use" }).click();
  await card.waitFor({ state: "detached" });
  await page.getByTestId("notice").filter({ hasText: "Using llama.cpp (scripted-model)" }).waitFor();
  assert.match(readFileSync(server.config, "utf8"), /agent_mode = "local"/);
  await page.getByTestId("run").click();
  await page.getByTestId("review-count").filter({ hasText: /^1$/ }).waitFor();
  const job = await api(server, "/api/agent/sessions").then((s) => s[0].last_job_id);
  assert.equal((await api(server, `/api/agent/jobs/${job}`)).provider, "local");
  await shot(page, "setup-2-ran");
});

test("a key typed into the card is kept out of the page and the config file", async () => {
  await api(server, "/api/settings", "PUT", { agent_mode: "remote" });
  await page.reload();
  const card = page.getByTestId("setup-card");
  await card.waitFor();
  await card.getByTestId("setup-key").fill(SECRET);
  await card.getByRole("button", { name: "Save key" }).click();
  await card.waitFor({ state: "detached" });
  await page.getByTestId("notice").filter({ hasText: "Using OpenAI" }).waitFor();
  assert.ok(!(await page.content()).includes(SECRET), "the key is nowhere in the page");
  assert.ok(!readFileSync(server.config, "utf8").includes(SECRET), "nor in the config file");
  const settings = await api(server, "/api/settings");
  assert.equal(settings.remote.key_hint, "…4321");
  assert.ok(!JSON.stringify(settings).includes(SECRET), "nor in any answer of the API");
});
