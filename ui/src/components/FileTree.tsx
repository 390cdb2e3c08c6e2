// The project's files as a folder tree, with a badge for pending hunks, a dot
// for unsaved work and a mark for conflicts.

import { memo } from "preact/compat";
import { useMemo, useState } from "preact/hooks";
import type { TreeEntry } from "../api/types";
import { openPath } from "../state/files";
import { dirtyPaths, openFile, tree } from "../state/store";

interface Folder {
  name: string;
  path: string;
  folders: Folder[];
  files: TreeEntry[];
}

function build(entries: TreeEntry[]): Folder {
  const root: Folder = { name: "", path: "", folders: [], files: [] };
  const index = new Map<string, Folder>([["", root]]);
  const folderOf = (path: string): Folder => {
    const found = index.get(path);
    if (found) return found;
    const cut = path.lastIndexOf("/");
    const parent = folderOf(cut < 0 ? "" : path.slice(0, cut));
    const folder: Folder = { name: path.slice(cut + 1), path, folders: [], files: [] };
    parent.folders.push(folder);
    index.set(path, folder);
    return folder;
  };
  for (const e of entries) {
    const cut = e.path.lastIndexOf("/");
    folderOf(cut < 0 ? "" : e.path.slice(0, cut)).files.push(e);
  }
  return root;
}

/** What every row needs to know beyond its entry. */
interface Marks {
  open: string | null;
  dirty: ReadonlySet<string>;
}

export function FileTree() {
  const root = useMemo(() => build(tree.value), [tree.value]);
  const marks: Marks = { open: openFile.value?.path ?? null, dirty: dirtyPaths.value };
  return (
    <section class="tree" aria-label="Files">
      <h2>Files</h2>
      <div class="tree-body" role="tree">
        <FolderRows folder={root} depth={0} marks={marks} />
      </div>
    </section>
  );
}

function FolderRows({ folder, depth, marks }: { folder: Folder; depth: number; marks: Marks }) {
  return (
    <>
      {folder.folders.map((f) => (
        <FolderRow key={f.path} folder={f} depth={depth} marks={marks} />
      ))}
      {folder.files.map((f) => (
        <FileRow key={f.path} entry={f} depth={depth} active={marks.open === f.path} dirty={marks.dirty.has(f.path)} />
      ))}
    </>
  );
}

function FolderRow({ folder, depth, marks }: { folder: Folder; depth: number; marks: Marks }) {
  const [open, setOpen] = useState(true);
  return (
    <>
      <button class="tree-row tree-folder" style={{ paddingLeft: `${8 + depth * 12}px` }} onClick={() => setOpen(!open)} aria-expanded={open}>
        <span class="chevron">{open ? "▾" : "▸"}</span>
        {folder.name}
      </button>
      {open && <FolderRows folder={folder} depth={depth + 1} marks={marks} />}
    </>
  );
}

const FileRow = memo(function FileRow({ entry, depth, active, dirty }: { entry: TreeEntry; depth: number; active: boolean; dirty: boolean }) {
  const name = entry.path.slice(entry.path.lastIndexOf("/") + 1);
  const pending = entry.state.pending_hunks.length;
  return (
    <button
      class={`tree-row tree-file${active ? " active" : ""}`}
      style={{ paddingLeft: `${20 + depth * 12}px` }}
      data-testid="tree-file"
      data-path={entry.path}
      onClick={() => void openPath(entry.path)}
      title={entry.path}
    >
      <span class="name">{name}</span>
      {dirty && <span class="dirty" title="Unsaved changes" aria-label="unsaved">●</span>}
      {entry.state.conflict && <span class="badge badge-conflict" title="Changed on disk by another program">conflict</span>}
      {pending > 0 && (
        <span class="badge" data-testid="pending-badge" title={`${pending} pending hunk(s)`}>
          {pending}
        </span>
      )}
    </button>
  );
});
