// A note's rendered HTML made safe to show in the window: DOMPurify (the
// standard, kept sanitizer) with its defaults — no script, no event
// handler, no `javascript:` address — no SVG or MathML, no style, and
// nothing that loads from anywhere.

import DOMPurify from "dompurify";

/** A note's HTML (`raw`: its Markdown held raw HTML) made safe to show: no script, no event handler, no
 * `javascript:` address (DOMPurify's defaults), no SVG or MathML, and
 * nothing loaded from anywhere: an image is shown as its description and
 * its address. */
export function sanitize(html: string, raw = true): string {
  // With no raw HTML in the note, the rendering holds only what markdown-it
  // escaped and our rules drew (no `src`, no handler): sanitizing 300 kB of
  // it cost more than rendering it.
  if (!raw) return html;
  DOMPurify.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName !== "IMG") return;
    const src = node.getAttribute("src") ?? "";
    node.removeAttribute("src");
    node.removeAttribute("srcset");
    node.setAttribute("data-src", src);
    node.setAttribute("alt", `${node.getAttribute("alt") || "Image"} (not loaded: ${src})`);
    node.classList.add("rl-image");
  });
  try {
    return DOMPurify.sanitize(html, {
      USE_PROFILES: { html: true },
      FORBID_TAGS: ["style", "link", "meta", "base", "iframe", "object", "embed", "video", "audio", "source", "form"],
      FORBID_ATTR: ["style", "srcset", "poster"],
    });
  } finally {
    DOMPurify.removeHook("afterSanitizeAttributes");
  }
}

