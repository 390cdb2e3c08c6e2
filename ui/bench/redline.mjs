// The redline view's figures: marking a 5,000-line note with 200 changes
// (parse both sides, compare, draw the HTML), cold and warm, in Node.js on
// the modules the unit tests build (`npm run unit` first, or
// `npx tsc -p tsconfig.unit.json`). Usage: node bench/redline.mjs
import { beforeHunks, redline } from "../.unit-build/redline/mark.js";
import { md } from "../.unit-build/redline/markdown.js";

const LINES = 5000;
const lines = [];
for (let i = 0; i < LINES; i++) {
  if (i % 50 === 0) lines.push(`## Section ${i / 50}`);
  else if (i % 7 === 0) lines.push("");
  else if (i % 11 === 0) lines.push(`- item ${i} with [[Note ${i}|an alias]] and #tag`);
  else lines.push(`Line ${i} of the note, with some words: café naïve ${i * 7}.`);
}
const after = [];
const hunks = [];
lines.forEach((line, i) => {
  if (i % 25 === 3) {
    hunks.push({ hunk_id: `h${i}`, status: "pending", line: after.length, lines: 1, old_text: `${line}\n` });
    after.push(line.replace("words", "changed words"));
  } else after.push(line);
});
const text = after.map((l) => `${l}\n`).join("");

const times = [];
let size = 0;
for (let run = 0; run < 8; run++) {
  const t = performance.now();
  size = redline(beforeHunks(text, hunks)).length;
  times.push(performance.now() - t);
}
const parse = performance.now();
md.render(text, {});
const rendered = performance.now() - parse;
const warm = times.slice(1).sort((a, b) => a - b);
console.log(`redline of a ${LINES.toLocaleString()}-line note with ${hunks.length} changes (${(size / 1024).toFixed(0)} KiB of HTML):`);
console.log(`  cold ${times[0].toFixed(0)} ms, warm median ${warm[Math.floor(warm.length / 2)].toFixed(0)} ms, best ${warm[0].toFixed(0)} ms`);
console.log(`  beside markdown-it rendering the note once, with no marks: ${rendered.toFixed(0)} ms (ratio ${(warm[Math.floor(warm.length / 2)] / rendered).toFixed(1)}×)`);
