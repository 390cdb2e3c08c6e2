// Another agent's edits, reviewed in the open window: an MCP client (the
// official Python SDK, tests/mcp/propose.py) asks a question and proposes
// through `redline mcp` while `redline serve` has the folder open; the
// question comes to the card and is answered there (the window offers review
// mode for other programs' writes while it is connected, and takes it in one
// click); the proposal shows live,
// grouped under the client's name; one hunk is accepted, one rejected, the file saved
// and its bytes checked.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { after, before, test } from "node:test";
import { api as get, browser, disk, redline, replaceLine, serve, shot, vault, waitFor as until } from "./support.mjs";

const python = process.env.REDLINE_MCP_PYTHON;
if (!python && process.env.REDLINE_REQUIRE_MCP) throw new Error("REDLINE_REQUIRE_MCP is set but REDLINE_MCP_PYTHON is not");

const A = "# Alpha\n\nOwner: Ann\n\nStatus: draft\n";
const B = "# Beta\n\nOwner: Bo\n";

let dir, server, chrome, page;
before(async () => {
  if (!python) return;
  dir = vault({ "a.md": A, "b.md": B });
  server = await serve(dir, []);
  ({ browser: chrome, page } = await browser());
});
after(async () => {
  await chrome?.close();
  await server?.stop();
});

test("an external agent's proposal is reviewed hunk by hunk in the open window", { skip: !python && "no REDLINE_MCP_PYTHON" }, async () => {
  await page.goto(server.url);
  await page.locator('[data-testid="tree-file"][data-path="a.md"]').waitFor();

  // The agent asks first: its question comes to the card, answered there.
  const edits = [replaceLine("a.md", 3, "Owner: Ann", "Owner: Cy"), replaceLine("a.md", 5, "Status: draft", "Status: final")];
  const agent = promisify(execFile)(python, [new URL("../../tests/mcp/propose.py", import.meta.url).pathname, redline, dir, server.data, "e2e-agent", JSON.stringify(edits), "Who owns Alpha now?"]);
  await page.getByTestId("clarify").filter({ hasText: "Who owns Alpha now?" }).waitFor();
  // While it is connected, the window offers to hold for review what other
  // programs write here (an agent writes through its shell too).
  const offer = page.getByTestId("review-offer");
  await offer.filter({ hasText: "e2e-agent" }).waitFor();
  // It covers nothing: the panes (the editor's Accept, Reject and Save) start below it.
  const [box, center] = await Promise.all([offer.boundingBox(), page.locator("main.center").boundingBox()]);
  assert.ok(box.y + box.height <= center.y, `the offer (${JSON.stringify(box)}) ends above the editor (${JSON.stringify(center)})`);
  await shot(page, "mcp-0-offer");
  await page.getByTestId("review-offer-accept").click();
  await offer.waitFor({ state: "detached" });
  assert.equal((await get(server, "/api/settings")).folder_settings.outside_changes, "review");
  assert.equal((await get(server, "/api/project")).outside_changes, "review");
  await page.getByTestId("clarify-answer").fill("Cy");
  await page.getByTestId("clarify-send").click();
  const { stdout } = await agent;
  const { asked, proposed } = JSON.parse(stdout.trim().split("\n").at(-1));
  assert.deepEqual(asked, { status: "answered", answer: "Cy" });
  assert.equal(proposed.status, "pending_review");
  const hunks = proposed.files.flatMap((f) => f.hunks.map((h) => h.hunk_id));
  assert.equal(hunks.length, 2, JSON.stringify(proposed));

  // Live in the open window, under the client's name.
  await page.getByTestId("review-count").filter({ hasText: /^2$/ }).waitFor();
  assert.deepEqual(await page.getByTestId("review-source").allInnerTexts(), ["e2e-agent"]);
  const [heading] = await page.getByTestId("review-instruction").allInnerTexts();
  assert.match(heading, /e2e-agent/);
  await shot(page, "mcp-1-proposed");

  // Reviewed hunk by hunk, then saved.
  const decide = async (hunk, kind) => {
    await page.locator(`[data-testid="review-item"][data-hunk-id="${hunk}"]`).click();
    await page.getByTestId("open-path").filter({ hasText: /^a\.md/ }).waitFor();
    await page.locator(`[data-testid="hunk-${kind}"][data-hunk-id="${hunk}"]`).click();
    await page.locator(`[data-testid="review-item"][data-hunk-id="${hunk}"]`).waitFor({ state: "detached" });
  };
  await decide(hunks[0], "accept");
  await decide(hunks[1], "reject");
  await page.getByTestId("review-count").filter({ hasText: /^0$/ }).waitFor();
  assert.equal(disk(dir, "a.md"), A, "nothing written before a save");
  await page.getByTestId("save-all").click();
  await until(page, () => disk(dir, "a.md") === A.replace("Owner: Ann", "Owner: Cy"), "a.md saved with the accepted hunk only");
  assert.equal(disk(dir, "b.md"), B);

  // The external job finished with its review, as Redline's own do (the
  // save writes the file first, then settles its jobs).
  await until(page, async () => (await get(server, `/api/agent/jobs/${proposed.job_id}`)).status === "completed", "the external job completed");
  await shot(page, "mcp-2-saved");
});

test("after a reload with a proposal awaiting review, another agent's proposal still shows live", { skip: !python && "no REDLINE_MCP_PYTHON" }, async () => {
  const script = new URL("../../tests/mcp/propose.py", import.meta.url).pathname;
  const propose = (name, edits) => promisify(execFile)(python, [script, redline, dir, server.data, name, JSON.stringify(edits)]);
  await propose("first-agent", [replaceLine("b.md", 3, "Owner: Bo", "Owner: Di")]);
  await page.getByTestId("review-count").filter({ hasText: /^1$/ }).waitFor();
  // Reloaded while that job awaits review: the window still follows the project.
  await page.reload();
  await page.getByTestId("review-count").filter({ hasText: /^1$/ }).waitFor();
  await propose("second-agent", [replaceLine("a.md", 1, "# Alpha", "# Alpha (reviewed)")]);
  await page.getByTestId("review-count").filter({ hasText: /^2$/ }).waitFor();
  const sources = await page.getByTestId("review-source").allInnerTexts();
  assert.ok(sources.includes("second-agent"), sources.join(", "));
  // The offer to review other programs' writes is gone with the clients.
  assert.equal(await page.getByTestId("review-offer").count(), 0);
});
