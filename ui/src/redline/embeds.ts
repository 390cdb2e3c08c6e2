// Image embeds (`![[diagram.png]]`) drawn from the vault in a rendered
// note: the engine sends the image's bytes, and the window shows them as a
// `data:` address, so nothing is loaded from anywhere else.

import { api } from "../api/client";

/** The vault's path for a link's or an embed's `target` (heading dropped):
 * itself when it names a path, else the file of that name the quick-open
 * index finds, as Obsidian resolves a name alone; a note's `.md` may be
 * left out. */
export async function resolve(target: string): Promise<string | null> {
  const name = target.split("#")[0].trim();
  if (!name) return null;
  const found = await api.quickOpen({ query: name, limit: 50 }).catch(() => null);
  const bare = (p: string) => p.toLowerCase().replace(/\.md$/, "");
  const want = bare(name);
  return found?.paths.find((p) => bare(p.path) === want || bare(p.path).endsWith(`/${want}`))?.path ?? null;
}

/** Draws every image embed under `root` that is not drawn yet; an image
 * that cannot be found or sent keeps its name, with why on hover. */
export async function drawImages(root: HTMLElement) {
  for (const embed of root.querySelectorAll<HTMLElement>(".embed-image[data-target]:not([data-drawn])")) {
    embed.dataset.drawn = "1";
    const target = embed.dataset.target ?? "";
    const path = await resolve(target);
    const image = path ? await api.image({ path }).catch((e: unknown) => (e instanceof Error ? e.message : String(e))) : "no file of that name";
    if (typeof image === "string") {
      embed.title = `${target}: ${image}`;
      continue;
    }
    const img = document.createElement("img");
    img.src = `data:${image.mime};base64,${image.base64}`;
    img.alt = target;
    img.title = image.path;
    img.className = "embed-drawn";
    embed.replaceChildren(img);
  }
}
