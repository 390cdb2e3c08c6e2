// Front matter (a YAML block between `---` lines at the very start of a
// note) as its own block of the Markdown tree, so the editor styles it as
// metadata: without it, CommonMark reads its last line and the closing
// `---` as a setext heading.

import { styleTags, tags } from "@lezer/highlight";
import type { MarkdownConfig } from "@lezer/markdown";

const FENCE = /^---\s*$/;
const CLOSE = /^(---|\.\.\.)\s*$/;

/** The Markdown extension that parses front matter as `Frontmatter`. A
 * block never closed runs to the end of the note (the parser cannot look
 * ahead for the fence without taking the lines). */
export const frontMatter: MarkdownConfig = {
  defineNodes: [{ name: "Frontmatter", block: true }],
  props: [styleTags({ Frontmatter: [tags.meta, tags.monospace] })],
  parseBlock: [
    {
      name: "Frontmatter",
      before: "HorizontalRule",
      parse(cx, line) {
        if (cx.lineStart !== 0 || !FENCE.test(line.text)) return false;
        const from = cx.lineStart;
        let to = from + line.text.length;
        while (cx.nextLine()) {
          to = cx.lineStart + line.text.length;
          if (CLOSE.test(line.text)) {
            cx.nextLine();
            break;
          }
        }
        cx.addElement(cx.elt("Frontmatter", from, to));
        return true;
      },
    },
  ],
};
