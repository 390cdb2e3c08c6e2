// The project feed, followed for as long as the page lives: another
// program's changes, review changes, rollbacks, and jobs the page did not
// start. Each word refreshes what it may have changed: the tree (once for a
// burst), the folders' listings, the open file, and what was fetched ahead.

import { api } from "../api/client";
import { showAgentWrite } from "./agent";
import type { JobUpdated } from "../api/types";
import { refreshTree, refreshTreeSoon } from "./listing";
import { dropAhead, getEditor, openFirstPending, openPath, reloadOpen } from "./navigation";
import { decisions } from "./review";
import { offerReview, outsideAlert, tell } from "./store";
import { reloadListings } from "./tree";

/** Follows the feed from `from`: see the module docs. `onRollback` and
 * `onJob` (a job's status changed) hear what the agent panel shows. */
export async function followProject(from: number, onRollback: () => void, onJob: (update: JobUpdated) => void) {
  let cursor = from;
  let listingsTimer: ReturnType<typeof setTimeout> | undefined;
  const listingsSoon = () => {
    clearTimeout(listingsTimer);
    listingsTimer = setTimeout(() => void reloadListings(), 60);
  };
  for (;;) {
    try {
      const page = await api.feed({ cursor, wait_ms: 25_000 });
      if (page.first_cursor > cursor) {
        refreshTreeSoon();
        listingsSoon();
      }
      cursor = page.next_cursor;
      let reload = false;
      const open = getEditor()?.openPath;
      for (const e of page.events) {
        if (e.type !== "review.updated" || !e.data.hunk_id || !decisions.ledger.isEcho(e.data.hunk_id)) refreshTreeSoon();
        switch (e.type) {
          case "rollback.completed":
            reload = true;
            dropAhead();
            listingsSoon();
            onRollback();
            break;
          case "file.saved":
          case "file.changed":
          case "file.reloaded":
          case "file.conflict":
          case "file.resolved":
            dropAhead(e.data.path);
            // A file may have appeared or gone.
            if (e.type === "file.saved" || e.type === "file.changed") listingsSoon();
            if (e.data.path === open) reload = true;
            break;
          case "tree.changed":
            listingsSoon();
            break;
          case "outside.destructive":
            outsideAlert.value = e.data;
            break;
          case "agent.write":
            // The agent waits: its write is shown at once (unless the user is in a file).
            tell("info", `${e.data.agent} waits for your review of its write to ${e.data.file_path}`);
            void refreshTree().then(() => openFirstPending(e.data.job_id));
            void showAgentWrite(e.data.job_id);
            break;
          case "mcp.connected":
            offerReview(e.data.client, e.data.outside_changes);
            break;
          case "outside.not_reviewable":
            // Record mode stays quiet for the user's own editor (pasted images).
            if (e.data.outside_changes === "review") tell("info", `Changed outside Redline, not reviewable: ${e.data.message}`);
            break;
          case "file.moved":
            // Another program moved a file: the open one follows it.
            dropAhead(e.data.from);
            listingsSoon();
            // The keyboard stays where it is: in the note if it was there,
            // else where the user is typing (the instruction box).
            if (e.data.from === open) void openPath(e.data.to, undefined, getEditor()?.view.hasFocus ?? false);
            break;
          case "review.batch":
          case "files.saved":
            dropAhead();
            if (e.type === "files.saved") listingsSoon();
            if (open) reload = true;
            break;
          case "job.updated":
            // A job that staged hunks may have staged some in the open file.
            if (e.data.status === "awaiting_review") {
              dropAhead();
              reload = true;
            }
            onJob(e.data);
            break;
          case "file.edited":
          case "review.updated":
            // What was fetched ahead of it may be older than this.
            dropAhead(e.data.path);
            break;
        }
      }
      if (reload) await reloadOpen();
    } catch {
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}
