// The project's files as a folder tree, with a badge for pending hunks, a dot
// for unsaved work and a mark for conflicts. A big project's folders load as
// they open (`state/tree.ts`) and start collapsed but for the way to the open
// file and to pending hunks; only the rows in view are in the page: the tree
// is one flat list of the visible rows, cut to the viewport.

import { effect, signal } from "@preact/signals";
import { memo } from "preact/compat";
import { useEffect, useMemo } from "preact/hooks";
import type { FolderEntry, Listing, TreeEntry } from "../api/types";
import { openPath } from "../state/navigation";
import { proposeFileOp } from "../state/saving";
import { dirtyPaths, openFile, renaming, tree } from "../state/store";
import { listings, loadFolder, whole } from "../state/tree";
import { useVisibleRows } from "./visibleRows";

/** The engine's order for a folder's files (`project::order`): accents and case aside, numbers by value.
 * Files only a buffer holds are placed among the listed ones with it. */
const byName = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

/** A row's height in pixels (`.tree-row` in styles.css). */
const ROW = 22;

type Row = { kind: "folder"; folder: FolderEntry; depth: number } | { kind: "file"; entry: TreeEntry; depth: number };

/** The files with a working buffer as the tree draws them: a task after
 * `tree` changes, so that the review list and the tree, each a pass over
 * every changed file (20,000 in a vault-wide review), are drawn in two
 * tasks rather than one that holds the page. */
const drawn = signal(tree.peek());
effect(() => {
  const now = tree.value;
  setTimeout(() => {
    if (tree.peek() === now) drawn.value = now;
  }, 0);
});

/** Folders the user opened or closed, by path (others follow the default). */
const toggled = signal<ReadonlyMap<string, boolean>>(new Map());

const parentOf = (path: string) => (path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "");

/** The files with a working buffer by folder, and per folder the folders
 * they add (ones a run made, or not listed yet). */
type Buffers = { files: Map<string, TreeEntry[]>; folders: Map<string, Set<string>>; moved: Map<string, Set<string>> };

function byFolder(changed: TreeEntry[]): Buffers {
  const files = new Map<string, TreeEntry[]>();
  const folders = new Map<string, Set<string>>();
  // Per folder, the paths a move takes files from: a listing fetched before
  // the move still has them.
  const moved = new Map<string, Set<string>>();
  for (const e of changed) {
    const from = e.state.op?.from;
    if (from !== undefined && from !== e.path) {
      const folder = parentOf(from);
      const there = moved.get(folder);
      if (there) there.add(from);
      else moved.set(folder, new Set([from]));
    }
    const parent = parentOf(e.path);
    const here = files.get(parent);
    if (here) here.push(e);
    else files.set(parent, [e]);
    // Up to the first folder known already: each folder is walked once.
    for (let above = parent; above !== ""; above = parentOf(above)) {
      const up = parentOf(above);
      let inUp = folders.get(up);
      if (!inUp) folders.set(up, (inUp = new Set()));
      if (inUp.has(above)) break;
      inUp.add(above);
    }
  }
  return { files, folders, moved };
}

/** Each folder's file rows, kept while its listing and its buffers are the
 * same objects: a vault-wide review has 20,000 changed files in a few
 * folders, and each folder listing that arrives would otherwise merge them
 * all again. */
const fileRows = new Map<string, { listing: Listing | undefined; buffers: TreeEntry[] | undefined; moved: Set<string> | undefined; rows: Row[] }>();

/** The visible rows: each open folder's listing, with the files that have a
 * working buffer (their state is the newest, and a run may have made them)
 * merged in; `missing` gets the open folders not loaded yet. */
function flatten(listed: ReadonlyMap<string, Listing>, buffers: Buffers, isOpen: (path: string) => boolean, missing: string[]): Row[] {
  const rows: Row[] = [];
  const walk = (path: string, depth: number) => {
    const listing = listed.get(path);
    if (!listing) missing.push(path);
    const folders = [...(listing?.folders ?? [])];
    for (const extra of buffers.folders.get(path) ?? []) if (!folders.some((f) => f.path === extra)) folders.push({ path: extra, files: 0 });
    for (const f of folders) {
      rows.push({ kind: "folder", folder: f, depth });
      if (isOpen(f.path)) walk(f.path, depth + 1);
    }
    const mine = buffers.files.get(path);
    const moved = buffers.moved.get(path);
    let cached = fileRows.get(path);
    if (!cached || cached.listing !== listing || cached.buffers !== mine || cached.moved !== moved) {
      const newer = new Map((mine ?? []).map((e) => [e.path, e]));
      const listed = (listing?.files ?? []).filter((e) => newer.has(e.path) || !moved?.has(e.path));
      const files = listed.map((e) => {
        const e2 = newer.get(e.path);
        newer.delete(e.path);
        return e2 ?? (e.state.under_review ? { ...e, state: { under_review: false, dirty: false, conflict: false, pending_hunks: [] } } : e);
      });
      files.push(...newer.values());
      if (newer.size > 0) files.sort((a, b) => byName.compare(a.path, b.path) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      cached = { listing, buffers: mine, moved, rows: files.map((entry) => ({ kind: "file", entry, depth })) };
      fileRows.set(path, cached);
    }
    for (const r of cached.rows) rows.push(r);
  };
  walk("", 0);
  return rows;
}

export function FileTree() {
  const changed = drawn.value;
  const listed = listings.value;
  const open = openFile.value?.path ?? null;
  const dirty = dirtyPaths.value;
  // Open by default: everything in a small project; in a big one, the way
  // to the open file and to files with pending hunks or conflicts.
  const wanted = useMemo(() => {
    const set = new Set<string>();
    const addFolders = (path: string) => {
      for (let above = parentOf(path); above !== "" && !set.has(above); above = parentOf(above)) set.add(above);
    };
    if (open) addFolders(open);
    for (const e of changed) if (e.state.pending_hunks.length > 0 || e.state.conflict) addFolders(e.path);
    return set;
  }, [changed, open]);
  const all = whole.value;
  const isOpen = (path: string) => toggled.value.get(path) ?? (all || wanted.has(path));
  const missing: string[] = [];
  const buffers = useMemo(() => byFolder(changed), [changed]);
  const rows = useMemo(() => flatten(listed, buffers, isOpen, missing), [listed, buffers, wanted, all, toggled.value]);
  useEffect(() => {
    for (const path of missing) void loadFolder(path);
  });
  const view = useVisibleRows(rows.length, ROW);
  // The open file's row comes into view.
  useEffect(() => {
    const at = rows.findIndex((r) => r.kind === "file" && r.entry.path === open);
    if (at >= 0) view.reveal(at, 0.5);
  }, [open, rows]);
  return (
    <section class="tree" aria-label="Files">
      <h2 title="Drop a file here to move it to the top folder" {...dropInto("")}>Files</h2>
      <div class="tree-body" role="tree" ref={view.body} onScroll={view.onScroll}>
        <div style={view.spacer}>
          <div style={view.shift}>
            {rows.slice(view.first, view.last).map((r) =>
              r.kind === "folder" ? (
                <FolderRow key={`d:${r.folder.path}`} folder={r.folder} depth={r.depth} open={isOpen(r.folder.path)} />
              ) : (
                <FileRow key={r.entry.path} entry={r.entry} depth={r.depth} active={open === r.entry.path} dirty={dirty.has(r.entry.path)} />
              ),
            )}
          </div>
        </div>
      </div>
    </section>
  );
}

/** The drag's type: a file's own path, dragged from its row. */
const DRAGGED = "application/x-redline-path";

/** What a folder row does with a file dropped on it: proposes moving it
 * there under its own name (for review; links follow). */
function dropInto(folder: string) {
  return {
    onDragOver: (e: DragEvent) => {
      if (!e.dataTransfer?.types.includes(DRAGGED)) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = "move";
      (e.currentTarget as HTMLElement).classList.add("drop-target");
    },
    onDragLeave: (e: DragEvent) => (e.currentTarget as HTMLElement).classList.remove("drop-target"),
    onDrop: (e: DragEvent) => {
      (e.currentTarget as HTMLElement).classList.remove("drop-target");
      const path = e.dataTransfer?.getData(DRAGGED);
      if (!path) return;
      e.preventDefault();
      const name = path.slice(path.lastIndexOf("/") + 1);
      const to = folder ? `${folder}/${name}` : name;
      if (to !== path) void proposeFileOp(path, { kind: "move", to });
    },
  };
}

function FolderRow({ folder, depth, open }: { folder: FolderEntry; depth: number; open: boolean }) {
  const toggle = () => {
    const next = new Map(toggled.value);
    next.set(folder.path, !open);
    toggled.value = next;
  };
  return (
    <button
      class="tree-row tree-folder"
      data-testid="tree-folder"
      data-path={folder.path}
      style={{ paddingLeft: `${8 + depth * 12}px` }}
      onClick={toggle}
      {...dropInto(folder.path)}
      aria-expanded={open}
      title={folder.files > 0 ? `${folder.files} file(s)` : undefined}
    >
      <span class="chevron">{open ? "▾" : "▸"}</span>
      {folder.path.slice(folder.path.lastIndexOf("/") + 1)}
    </button>
  );
}


/** The field that renames or moves a file: its whole path, edited in place.
 * Enter proposes the move (for review), Escape leaves it. */
function RenameField({ path, depth }: { path: string; depth: number }) {
  const done = (to: string | null) => {
    renaming.value = null;
    const target = to?.trim();
    if (target && target !== path) void proposeFileOp(path, { kind: "move", to: target });
  };
  return (
    <input
      class="tree-row tree-rename"
      data-testid="tree-rename"
      style={{ paddingLeft: `${20 + depth * 12}px` }}
      value={path}
      aria-label={`New path of ${path}`}
      ref={(el) => {
        if (el && document.activeElement !== el) {
          el.focus();
          // The name without its extension is what is usually changed.
          const start = path.lastIndexOf("/") + 1;
          const dot = path.lastIndexOf(".");
          el.setSelectionRange(start, dot > start ? dot : path.length);
        }
      }}
      onKeyDown={(e) => {
        if (e.key === "Enter") done((e.target as HTMLInputElement).value);
        if (e.key === "Escape") done(null);
      }}
      onBlur={() => done(null)}
    />
  );
}

const FileRow = memo(function FileRow({ entry, depth, active, dirty }: { entry: TreeEntry; depth: number; active: boolean; dirty: boolean }) {
  if (renaming.value === entry.path) return <RenameField path={entry.path} depth={depth} />;
  const name = entry.path.slice(entry.path.lastIndexOf("/") + 1);
  const pending = entry.state.pending_hunks.length;
  const op = entry.state.op;
  const deleted = op?.op.kind === "delete" && op.status !== "rejected";
  // A decided move or deletion makes way for another (the engine retires it
  // once it is saved).
  const movable = !op || op.status !== "pending";
  return (
    <div class={`tree-row tree-file${active ? " active" : ""}`} style={{ paddingLeft: `${20 + depth * 12}px` }}>
    <button
      class="tree-open"
      data-testid="tree-file"
      data-path={entry.path}
      draggable={movable}
      onDragStart={(e) => {
        e.dataTransfer?.setData(DRAGGED, entry.path);
        if (e.dataTransfer) e.dataTransfer.effectAllowed = "move";
      }}
      onClick={() => void openPath(entry.path)}
      onKeyDown={(e) => {
        if (e.key === "F2") {
          e.preventDefault();
          renaming.value = entry.path;
        }
        if (e.key === "Delete" && !deleted) void proposeFileOp(entry.path, { kind: "delete" });
      }}
      title={op?.op.kind === "move" ? `${entry.path} (moved from ${op.from}, ${op.status})` : entry.path}
    >
      <span class={`name${deleted ? " deleted" : ""}`}>{name}</span>
      {op?.op.kind === "move" && (op.status === "pending" || (op.status === "accepted" && !op.done)) && (
        <span class="badge badge-op" data-testid="moved-badge" title={`Moved from ${op.from}`}>
          moved
        </span>
      )}
      {deleted && (
        <span class="badge badge-op" data-testid="deleted-badge" title="Deleted once accepted and saved">
          deleted
        </span>
      )}
      {dirty && <span class="dirty" title="Unsaved changes" aria-label="unsaved">●</span>}
      {entry.state.conflict && <span class="badge badge-conflict" title="Changed on disk by another program">conflict</span>}
      {pending > 0 && (
        <span class="badge" data-testid="pending-badge" title={`${pending} pending hunk(s)`}>
          {pending}
        </span>
      )}
    </button>
      {active && movable && (
        <span class="tree-actions">
          <button class="mini" data-testid="tree-rename-button" title="Rename or move (F2): proposed for review, links follow" onClick={() => (renaming.value = entry.path)}>
            ✎
          </button>
          <button class="mini" data-testid="tree-delete-button" title="Delete (Del): proposed for review" onClick={() => void proposeFileOp(entry.path, { kind: "delete" })}>
            ✕
          </button>
        </span>
      )}
    </div>
  );
});
