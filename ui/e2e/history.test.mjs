// Undo takes back exactly what the last step moved, from the engine's
// history: a run's "Reject all pending" after saved accepts brings back its
// two hunks only (the saved notes stay on disk), redo rejects them again; a
// pattern's undo leaves a hunk rejected on its own; an Apply's undo brings
// back what it rejected and keeps what was accepted before it; and after a
// reload Alt+U still undoes the last step.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { api, browser, call, disk, replaceLine, serve, shot, vault, waitFor } from "./support.mjs";

const NOTES = 10;
const path = (i) => `Notes/n${i}.md`;
const note = (i) => `# Nota ${i} — café\n\nStatus: brouillon\nOwner: Zoë\n`;
const final = (i) => note(i).replace("brouillon", "final");
const TURNS = [
  call("propose_edits", { edits: [...Array(NOTES).keys()].map((i) => replaceLine(path(i), 3, "Status: brouillon", "Status: final")), summary: "Final." }),
  call("propose_edits", { edits: [...Array(NOTES).keys()].map((i) => replaceLine(path(i), 4, "Owner: Zoë", "Owner: Zoé")), summary: "Zoé." }),
];

let dir, server, chrome, page;
before(async () => {
  const files = {};
  for (let i = 0; i < NOTES; i++) files[path(i)] = note(i);
  dir = vault(files);
  server = await serve(dir, TURNS);
  ({ browser: chrome, page } = await browser());
});
after(async () => {
  await chrome?.close();
  await server?.stop();
});

/** The status of every hunk of the engine's notes, counted. */
async function counts() {
  const out = { pending: 0, accepted: 0, rejected: 0 };
  for (let i = 0; i < NOTES; i++) for (const h of (await api(server, `/api/files/content?path=${encodeURIComponent(path(i))}`)).hunks) out[h.status]++;
  return out;
}

/** Waits until the engine's counts are `want`. */
async function until(want, what) {
  await waitFor(page, async () => JSON.stringify(await counts()) === JSON.stringify({ pending: 0, accepted: 0, rejected: 0, ...want }), what);
}

const count = (n) => page.getByTestId("review-count").filter({ hasText: new RegExp(`^${n}$`) }).waitFor();
const told = (text) => page.getByText(text).first().waitFor();

async function run(instruction) {
  await page.getByTestId("instruction").fill(instruction);
  await page.getByTestId("run").click();
  await page.getByTestId("job-status").filter({ hasText: "Awaiting review" }).first().waitFor();
  await count(NOTES);
}

/** Accepts `n` hunks from the keyboard, one after the other, each reaching the engine. */
async function acceptFromTheKeyboard(n, before) {
  const decided = new Set();
  for (let k = 1; k <= n; k++) {
    // Each key once the next hunk is on screen, as a person presses it: the
    // next note takes a moment to open on a loaded machine, and a key pressed
    // before it is shown has no hunk to decide.
    await waitFor(
      page,
      async () => {
        const id = await page
          .locator(".cm-hunk-current")
          .first()
          .getAttribute("data-hunk-id", { timeout: 500 })
          .catch(() => null);
        if (id === null || decided.has(id)) return false;
        decided.add(id);
        return true;
      },
      `hunk ${k} on screen`,
    );
    await page.keyboard.press("Alt+KeyY");
    await until({ ...before(k) }, `accept ${k} reached the engine`);
  }
}

test("undo and redo take back exactly the last step, after a reload too", async () => {
  await page.goto(server.url);
  await page.getByTestId("tree-file").first().waitFor();
  await run("Mark every note final");

  // Eight accepted from the keyboard and saved; then "Reject all pending".
  await page.getByTestId("review-item").first().click();
  await acceptFromTheKeyboard(8, (k) => ({ accepted: k, pending: NOTES - k }));
  await page.getByTestId("save-all").click();
  await waitFor(page, async () => [...Array(8).keys()].every((i) => disk(dir, path(i)) === final(i)), "eight notes saved");
  await page.getByTestId("reject-job").click();
  await until({ accepted: 8, rejected: 2 }, "the two pending rejected");
  await count(0);

  await page.keyboard.press("Alt+KeyU");
  await told("Undid: Rejected every pending hunk of this run (2 hunk(s) in 2 file(s))");
  await until({ accepted: 8, pending: 2 }, "exactly those two pending again");
  await count(2);
  await shot(page, "history-1-reject-all-undone");
  // A save now leaves the eight saved notes as they are.
  await api(server, "/api/files/save_all", "POST");
  for (let i = 0; i < NOTES; i++) assert.equal(disk(dir, path(i)), i < 8 ? final(i) : note(i), path(i));

  await page.keyboard.press("Alt+Shift+KeyU");
  await told("Redid: Rejected every pending hunk of this run (2 hunk(s) in 2 file(s))");
  await until({ accepted: 8, rejected: 2 }, "rejected again");
  await count(0);

  // A pattern: one hunk rejected on its own, then the pattern accepted and undone.
  await run("Spell Zoé with an acute accent");
  await page.getByTestId("review-item").first().click();
  await page.locator(".cm-hunk-current").first().waitFor();
  await page.keyboard.press("Alt+KeyN");
  const second = { accepted: 8, rejected: 3 };
  await until({ ...second, pending: NOTES - 1 }, "one rejected on its own");
  await page.getByTestId("pattern-accept").first().click();
  await until({ ...second, accepted: 8 + NOTES - 1 }, "the pattern accepted");
  await page.keyboard.press("Alt+KeyU");
  await until({ ...second, pending: NOTES - 1 }, "the pattern's nine pending again, the tenth still rejected");
  await count(NOTES - 1);

  // Apply after three accepts: its undo brings back the six it rejected.
  await page.getByTestId("review-item").first().click();
  await acceptFromTheKeyboard(3, (k) => ({ accepted: 8 + k, rejected: 3, pending: NOTES - 1 - k }));
  await page.getByTestId("apply-job").click();
  await until({ accepted: 11, rejected: 9 }, "applied: the six pending rejected");
  await page.keyboard.press("Alt+KeyU");
  await until({ accepted: 11, rejected: 3, pending: 6 }, "the apply undone: six pending, the three accepts kept");
  await page.keyboard.press("Alt+Shift+KeyU");
  await until({ accepted: 11, rejected: 9 }, "the apply redone");

  // After a reload the engine still knows the last step.
  await page.reload();
  await page.getByTestId("tree-file").first().waitFor();
  await page.keyboard.press("Alt+KeyU");
  await told(/^Undid: Applied the review of /);
  await until({ accepted: 11, rejected: 3, pending: 6 }, "the apply undone after a reload");
  await shot(page, "history-2-undone-after-reload");
});
