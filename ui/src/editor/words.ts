// Changes between two texts at the grain people read: whole words. A
// character diff marks "in the third quart|er" against "on 9 Septemb|er"
// (the shared "er" left out); widened, the whole of "quarter" and
// "September" is marked. A change inside one long token (a hash, a URL, an
// identifier) stays as it is: there the characters are what changed.

import { type Change, presentableDiff } from "@codemirror/merge";

/** A word longer than this is a token whose characters are worth marking. */
const LONG_TOKEN = 24;

const WORD = /[\p{L}\p{N}_]/u;
const isWord = (c: string | undefined) => c !== undefined && WORD.test(c);

/** The changes from `a` to `b`, each widened to the words it touches. */
export function wordDiff(a: string, b: string): Change[] {
  return wholeWords(a, b, presentableDiff(a, b));
}

/** `changes` (from `a` to `b`, in order) widened to whole words, merged
 * where they then meet. Text between two changes is the same in both
 * texts, so each side moves by the same amount and stays within it. */
export function wholeWords(a: string, b: string, changes: readonly Change[]): Change[] {
  const out: { fromA: number; toA: number; fromB: number; toB: number }[] = [];
  for (let i = 0; i < changes.length; i++) {
    const c = changes[i];
    let { fromA, toA, fromB, toB } = c;
    const prev = out[out.length - 1];
    const floor = prev ? Math.min(fromA - prev.toA, fromB - prev.toB) : Math.min(fromA, fromB);
    const next = changes[i + 1];
    const ceiling = next ? Math.min(next.fromA - toA, next.fromB - toB) : Math.min(a.length - toA, b.length - toB);
    // Widened only where the change itself begins or ends inside a word:
    // a word inserted after another leaves that one alone.
    const startsInWord = (toA > fromA && isWord(a[fromA])) || (toB > fromB && isWord(b[fromB]));
    const endsInWord = (toA > fromA && isWord(a[toA - 1])) || (toB > fromB && isWord(b[toB - 1]));
    let back = 0;
    if (startsInWord) while (back < floor && isWord(a[fromA - back - 1])) back++;
    let ahead = 0;
    if (endsInWord) while (ahead < ceiling && isWord(a[toA + ahead])) ahead++;
    const widened = { fromA: fromA - back, toA: toA + ahead, fromB: fromB - back, toB: toB + ahead };
    // One long token on both sides, one run of word characters: keep the
    // characters.
    const token = (text: string, from: number, to: number) => to - from > LONG_TOKEN && ![...text.slice(from, to)].some((ch) => !isWord(ch));
    if ((back > 0 || ahead > 0) && token(a, widened.fromA, widened.toA) && token(b, widened.fromB, widened.toB)) {
      ({ fromA, toA, fromB, toB } = c);
    } else {
      ({ fromA, toA, fromB, toB } = widened);
    }
    if (prev && fromA <= prev.toA && fromB <= prev.toB) {
      prev.toA = Math.max(prev.toA, toA);
      prev.toB = Math.max(prev.toB, toB);
    } else {
      out.push({ fromA, toA, fromB, toB });
    }
  }
  return out;
}
