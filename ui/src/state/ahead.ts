// The next file with pending hunks, fetched while the user reviews the one
// open, so that moving onto it does not wait for the network. Only one file
// is held; an answer of the engine about it replaces what was fetched, and
// anything newer that happens to it drops it.
//
// It calls no API: the caller gives the fetch.

import type { FileContent } from "../api/types";

/** The file fetched ahead, by path. */
export class Ahead {
  private held = new Map<string, Promise<FileContent | null>>();

  /** Keeps only `path`'s fetch ahead (or none), starting it with `fetch`
   * unless it is held already. */
  fetch(path: string | null, fetch: (path: string) => Promise<FileContent | null>) {
    for (const held of this.held.keys()) if (held !== path) this.held.delete(held);
    if (path && !this.held.has(path)) this.held.set(path, fetch(path).catch(() => null));
  }

  /** Takes what was fetched ahead of `path` (undefined when nothing was). */
  take(path: string): Promise<FileContent | null> | undefined {
    const held = this.held.get(path);
    this.held.delete(path);
    return held;
  }

  /** Replaces what was fetched ahead of `file`'s path with a newer answer. */
  answered(file: FileContent) {
    if (this.held.has(file.path)) this.held.set(file.path, Promise.resolve(file));
  }

  /** Drops what was fetched ahead of `path` (every file's when none is
   * given): something newer happened to it. */
  drop(path?: string) {
    if (path === undefined) this.held.clear();
    else this.held.delete(path);
  }
}
