// Save all is one request the engine carries out: a vault-wide change of
// 600 notes, accepted, saved with the button, and the tab closed right
// after — every note is written all the same, and the window sent one
// request, not one a file.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { api, browser, disk, serve, vault, waitFor } from "./support.mjs";

const NOTES = 600;
const note = (i) => `---\ntitle: Note ${i} — “Atlas”\n---\n# Note ${i}\n\nAtlas ships in week ${i}; café ☕.\n`;
const renamed = (i) => note(i).replace("\n\nAtlas ships", "\n\nMeridian ships");

let dir, server, chrome, page;
before(async () => {
  const files = {};
  for (let i = 0; i < NOTES; i++) files[`Notes/${String(i).padStart(3, "0")}.md`] = note(i);
  dir = vault(files);
  server = await serve(dir, []);
  ({ browser: chrome, page } = await browser());
});
after(async () => {
  await chrome?.close();
  await server?.stop();
});

test("Save all writes every file though the tab closes right after", async () => {
  const replace = { op: "replace_text", find: "Atlas ships", replace: "Meridian ships" };
  const job = await api(server, "/api/operations", "POST", { operations: [replace] });
  await api(server, "/api/review/decide", "POST", { selection: { kind: "job", job_id: job.job_id }, status: "accepted" });
  await page.goto(server.url);
  // The window knows every note has unsaved work before the button is pressed.
  await page.getByTestId("save-all").filter({ hasText: `Save all (${NOTES})` }).waitFor();
  const saves = [];
  page.on("request", (r) => {
    if (new URL(r.url()).pathname.startsWith("/api/files/save")) saves.push(new URL(r.url()).pathname);
  });
  const path = (i) => `Notes/${String(i).padStart(3, "0")}.md`;
  await page.getByTestId("save-all").click();
  // Closed as soon as the engine has begun to put the notes in place.
  await waitFor(page, async () => disk(dir, path(0)) === renamed(0), "the first note written");
  await page.close();
  await waitFor(page, async () => disk(dir, path(NOTES - 1)) === renamed(NOTES - 1), "the last note written", 30_000);
  for (let i = 0; i < NOTES; i++) assert.equal(disk(dir, path(i)), renamed(i), path(i));
  assert.deepEqual(saves, ["/api/files/save_all"], "one request");
  const left = await api(server, "/api/files/changed");
  assert.equal(left.files.filter((f) => f.state.dirty).length, 0, "nothing left unsaved");
});
