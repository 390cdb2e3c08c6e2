// A terminal agent's write, reviewed before it lands, in a real browser:
// the real `redline hook`, given the PreToolUse call Claude Code sends for
// an Edit, stages it in the running Redline; the window tells of it and
// opens the file at its hunk; the user changes the proposed text in the
// editor and accepts it; the hook answers with arguments that write exactly
// that text, made here as Claude Code's Edit makes them; the disk has the
// user's text, and Redline counts the agent's write as its own save.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { api, browser, disk, redline, serve, shot, vault, waitFor as until } from "./support.mjs";

const A = "# A\n\nStatus: draft\nOwner: Ann\n";

let dir, server, chrome, page;
before(async () => {
  dir = vault({ "a.md": A, "b.md": "# B\n" });
  server = await serve(dir, []);
  ({ browser: chrome, page } = await browser());
});
after(async () => {
  await chrome?.close();
  await server?.stop();
});

/** Runs `redline hook` on Claude Code's PreToolUse call `tool(input)`; resolves with its answer. */
function hook(tool, input) {
  const child = spawn(redline, ["hook", "--folder", dir, "--wait", "60s"], {
    env: { ...process.env, REDLINE_DATA_DIR: server.data, REDLINE_CONFIG: server.config, REDLINE_NO_KEYCHAIN: "1" },
    stdio: ["pipe", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stdin.end(
    JSON.stringify({
      session_id: "a0890ae0-e568-4806-869e-4ff7238bbf9d",
      transcript_path: join(dir, "transcript.jsonl"),
      cwd: dir,
      permission_mode: "default",
      hook_event_name: "PreToolUse",
      tool_name: tool,
      tool_input: input,
      tool_use_id: "toolu_1",
    }),
  );
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, answer: out.trim() ? JSON.parse(out) : null })));
}

test("a hooked edit is shown at once, changed in the editor, accepted, and written as decided", async () => {
  await page.goto(server.url);
  await page.getByTestId("review-count").filter({ hasText: /^0$/ }).waitFor();
  const answered = hook("Edit", { file_path: join(dir, "a.md"), old_string: "Status: draft", new_string: "Status: final" });

  // The window tells of it, and opens the file at its hunk.
  await page.getByText("Claude Code waits for your review of its write to a.md").waitFor();
  await page.getByTestId("open-path").filter({ hasText: /^a\.md/ }).waitFor();
  const [group] = (await api(server, "/api/review")).jobs;
  assert.ok(group.instruction.startsWith("Claude Code edits a.md"), group.instruction);
  assert.ok(group.source.startsWith("Claude Code · a0890ae0"), group.source);
  // The agent's session is shown, its job saying that the agent waits.
  await page.getByTestId("job-agent-waiting").filter({ hasText: "Claude Code is waiting for your decision before it writes" }).waitFor();
  await shot(page, "hook-1-waiting");

  // The proposed text changed in the editor, then accepted.
  await page.locator(".cm-line", { hasText: "Status: final" }).click();
  await page.keyboard.press("End");
  await page.keyboard.type(" (checked)");
  await until(page, async () => (await api(server, "/api/files/content?path=a.md")).text.includes("Status: final (checked)"), "the typing reached the engine");
  const hunk = group.hunks[0].hunk_id;
  await page.locator(`[data-testid="hunk-accept"][data-hunk-id="${hunk}"]`).click();
  const { code, answer } = await answered;
  assert.equal(code, 0);
  const out = answer.hookSpecificOutput;
  assert.equal(out.permissionDecision, "allow", JSON.stringify(answer));
  assert.match(out.additionalContext, /changed by the user/);
  assert.equal(disk(dir, "a.md"), A, "nothing is written before the agent writes");
  // Answered, the agent no longer waits, and the job says so.
  await page.getByTestId("job-agent-waiting").waitFor({ state: "detached" });

  // Claude Code's Edit, with the arguments the hook gave.
  const { old_string, new_string, replace_all } = out.updatedInput;
  assert.equal(replace_all, false);
  assert.equal(A.split(old_string).length, 2, "the old text names one place");
  writeFileSync(join(dir, "a.md"), A.replace(old_string, new_string));
  assert.equal(disk(dir, "a.md"), "# A\n\nStatus: final (checked)\nOwner: Ann\n");
  // Redline takes the agent's write as its own save: clean, no conflict, no outside change.
  await until(
    page,
    async () => {
      const file = await api(server, "/api/files/content?path=a.md");
      return !file.state.dirty && !file.state.conflict;
    },
    "the agent's write counts as saved",
  );
  assert.deepEqual((await api(server, "/api/review")).jobs, []);
  await page.getByTestId("review-count").filter({ hasText: /^0$/ }).waitFor();
  await shot(page, "hook-2-written");
});

test("a hooked write rejected with a reason is refused, and the agent reads the reason", async () => {
  const answered = hook("Write", { file_path: join(dir, "b.md"), content: "# B\n\nRewritten.\n" });
  await page.getByText("Claude Code waits for your review of its write to b.md").waitFor();
  await until(page, async () => (await api(server, "/api/review")).jobs.length === 1, "the write is in the review");
  const [group] = (await api(server, "/api/review")).jobs;
  await api(server, `/api/agent/hunks/${group.hunks[0].hunk_id}/decide`, "POST", { status: "rejected", reason: "B stays short" });
  const { answer } = await answered;
  assert.equal(answer.hookSpecificOutput.permissionDecision, "deny");
  assert.match(answer.hookSpecificOutput.permissionDecisionReason, /rejected it: B stays short/);
  assert.equal(disk(dir, "b.md"), "# B\n");
});
