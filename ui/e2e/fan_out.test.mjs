// One model call per note, in the window: the agent runs an instruction over
// a folder; the timeline shows the plan and a progress bar as the notes come
// back, the first notes are in the review queue before the run ends, and
// nothing reaches the disk until a save.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { browser, call, disk, serve, shot, vault } from "./support.mjs";

const NOTES = 6;
const path = (i) => `Meetings/m${i}.md`;
const text = (i) => `# Meeting ${i}\n\nWe agreed on item ${i}.\n`;

const files = Object.fromEntries([...Array(NOTES).keys()].map((i) => [path(i), text(i)]));
const TURNS = [
  call("edit_each_note", { instruction: "Add a summary under the title", scope: { folders: ["Meetings"] } }),
  // Each note's own call, answered for that note; the later ones slowly, so
  // the run is seen under way.
  ...[...Array(NOTES).keys()].map((i) => ({
    kind: "when",
    contains: `The note \`${path(i)}\`:`,
    turn: {
      ...call("propose_edits", { edits: [{ file_path: path(i), operation: "insert", start_line: 2, new_text: `Summary: item ${i}.\n` }] }),
      chunk_delay_ms: i < 2 ? 0 : 300,
    },
  })),
];

let dir, server, chrome, page;
before(async () => {
  dir = vault(files);
  server = await serve(dir, TURNS, { REDLINE_FAN_OUT_CONCURRENCY: "1" });
  ({ browser: chrome, page } = await browser());
});
after(async () => {
  await chrome?.close();
  await server?.stop();
});

test("a run over a folder shows its progress and is reviewed as it comes", async () => {
  await page.goto(server.url);
  await page.getByTestId("tree-file").first().waitFor();
  await page.getByTestId("instruction").fill("Summarise each meeting");
  await page.getByTestId("run").click();

  const bar = page.getByTestId("fan-out-progress");
  await bar.waitFor();
  await page.getByTestId("timeline").getByText(/One call per note: \d of 6 notes/).waitFor();
  // Under way, and the first notes already in review.
  const underWay = async () => {
    const done = Number(await bar.getAttribute("value"));
    const count = Number(await page.getByTestId("review-count").textContent().catch(() => "0"));
    return done < NOTES && count >= 1;
  };
  const end = Date.now() + 20000;
  while (!(await underWay())) {
    assert.ok(Date.now() < end, "the first notes were never in review while the run went on");
    await page.waitForTimeout(50);
  }
  await shot(page, "fan-out-1-running");

  await page.getByTestId("job-status").filter({ hasText: "Awaiting review" }).waitFor();
  await page.getByTestId("timeline").getByText("One call per note: 6 of 6 notes").waitFor();
  assert.equal(await bar.getAttribute("value"), "6");
  assert.equal(await bar.getAttribute("max"), "6");
  await page.getByTestId("review-count").filter({ hasText: "6" }).waitFor();
  for (let i = 0; i < NOTES; i++) assert.equal(disk(dir, path(i)), text(i), "nothing written before a save");
  await shot(page, "fan-out-2-done");
});
