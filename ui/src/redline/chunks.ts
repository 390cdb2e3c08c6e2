// A long note's blocks drawn in chunks. Off screen, a chunk is neither laid
// out nor painted (`content-visibility: auto`), and the browser watches a
// few dozen chunks rather than hundreds of blocks, each of which it would
// otherwise track and lay out on every frame that changes the note.

/** Blocks a chunk holds. */
const BLOCKS = 32;

/** Groups `article`'s top-level blocks into chunks of {@link BLOCKS} (each
 * a `div.rl-chunk`), when it has more than two chunks' worth; a short note
 * is left as it is. Only where the blocks sit changes: their marks, text
 * and order stay. */
export function chunk(article: HTMLElement) {
  const blocks = [...article.children];
  if (blocks.length <= 2 * BLOCKS) return;
  const chunks = document.createDocumentFragment();
  for (let i = 0; i < blocks.length; i += BLOCKS) {
    const group = document.createElement("div");
    group.className = "rl-chunk";
    group.append(...blocks.slice(i, i + BLOCKS));
    chunks.append(group);
  }
  article.replaceChildren(chunks);
}
