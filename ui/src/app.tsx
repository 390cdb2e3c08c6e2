// The window: the file tree and review list on the left, the editor in the
// middle, the agent on the right; checkpoints, settings and help as panels.

import { useEffect } from "preact/hooks";
import { api } from "./api/client";
import { inDesktop } from "./api/transport";
import { Checkpoints } from "./components/Checkpoints";
import { reloadCheckpoints } from "./state/checkpoints";
import { DecisionDialog } from "./components/DecisionDialog";
import { leftWidth, PaneResizer } from "./components/PaneResizer";
import { EditorPane } from "./components/EditorPane";
import { FileTree } from "./components/FileTree";
import { Help } from "./components/Help";
import { useLoaded } from "./components/loaded";
import { OpenFolder } from "./components/OpenFolder";
import { ReviewList } from "./components/ReviewList";
import { SettingsPanel } from "./components/Settings";
import { QuickOpen } from "./components/QuickOpen";
import { ReplacePanel } from "./components/ReplacePanel";
import { SearchPanel } from "./components/SearchPanel";
import { Sidebar } from "./components/Sidebar";
import { jobUpdated, loadAgents, loadSessions } from "./state/agent";
import { loadSetup } from "./state/setup";
import { followProject } from "./state/feed";
import { listedCursor, refreshTree, reviewListed } from "./state/listing";
import { restoreOutside } from "./state/review";
import { saveAll } from "./state/saving";
import { declineReview, dirtyPaths, job, needsFolder, notice, offerReview, outsideAlert, overlay, project, reviewJobs, reviewOffer, tell } from "./state/store";
import { reloadListings } from "./state/tree";
import { acceptReviewOffer, loadProject } from "./state/project";

let asked = (_: boolean) => {};
/** Resolves once a cold load's listings are asked for (true) or cannot be
 * (false: the project cannot be followed). */
export const listingsAsked = new Promise<boolean>((resolve) => (asked = resolve));

/** Loads the open project, or asks for a folder (desktop app only). */
export async function boot() {
  performance.mark("boot");
  // The listings are asked at once, with the project beside them; each
  // answer carries the feed's cursor at its moment, and the feed is
  // followed from the lower of the two, so nothing after them is missed
  // and a cold load's first rows wait for no other round trip.
  const listed = refreshTree();
  asked(true);
  if (!(await loadProject()) || !project.value) return;
  document.title = `${project.value.name} — Redline`;
  for (const client of project.value.mcp_clients.slice(0, 1)) offerReview(client, project.value.outside_changes);
  const cursor = (await listedCursor()) ?? (await api.feed({ cursor: Number.MAX_SAFE_INTEGER, wait_ms: 0 }).then((now) => now.next_cursor).catch((e: unknown) => {
    tell("error", `Following the project: ${e instanceof Error ? e.message : e}`);
    return 0;
  }));
  performance.mark("feed");
  // Followed at once, whatever the shown job is doing.
  void followProject(
    cursor,
    () => void reloadCheckpoints(),
    (update) => void jobUpdated(update),
  );
  // The rest of the window waits for the review's first rows, so that a
  // cold load's first listing has the engine to itself; the folders are
  // listed after the feed's cursor was read, so none of their changes is
  // missed either.
  await reviewListed();
  await Promise.all([listed, reloadListings(), loadSessions(), loadAgents(), loadSetup()]);
}

export function App() {
  useEffect(() => {
    // A browser tab asks before closing on unsaved work; the desktop shell asks natively.
    const guard = (e: BeforeUnloadEvent) => {
      if (!inDesktop && dirtyPaths.value.size > 0) e.preventDefault();
    };
    window.addEventListener("beforeunload", guard);
    return () => window.removeEventListener("beforeunload", guard);
  }, []);

  if (needsFolder.value) return <OpenFolder />;
  const shown = notice.value;
  return (
    <div class={overlay.value === "document" ? "app reading" : "app"} style={{ "--left-width": `${leftWidth.value}px` }}>
      <header class="topbar">
        <span class="brand">Redline</span>
        <span class="project" data-testid="project-name" title={project.value?.root}>
          {project.value?.name ?? "…"}
        </span>
        <span class="spacer" />
        {shown && (
          <span class={`notice notice-${shown.kind}`} role={shown.kind === "error" ? "alert" : "status"} data-testid="notice">
            {shown.text}
            <button class="link" onClick={() => (notice.value = null)} aria-label="Dismiss">
              ×
            </button>
          </span>
        )}
        {dirtyPaths.value.size > 0 && (
          <button data-testid="save-all" onClick={() => void saveAll()} title="Save every file with unsaved work (Ctrl+Alt+S)">
            Save all ({dirtyPaths.value.size})
          </button>
        )}
        <button data-testid="open-checkpoints" onClick={() => (overlay.value = "checkpoints")} title="Checkpoints (Alt+P)">
          Checkpoints
        </button>
        <button data-testid="open-settings" onClick={() => (overlay.value = "settings")} title="Settings (Alt+,)">
          Settings
        </button>
        <button onClick={() => (overlay.value = "help")} title="Keyboard shortcuts (F1)" aria-label="Keyboard shortcuts">
          ?
        </button>
      </header>
      {outsideAlert.value && <OutsideAlert />}
      {!outsideAlert.value && reviewOffer.value && <ReviewOffer client={reviewOffer.value} />}
      <nav class="left">
        <ReviewList />
        <FileTree />
        <PaneResizer />
      </nav>
      <main class="center">
        <EditorPane />
      </main>
      <aside class="right">
        <Sidebar />
      </aside>
      {overlay.value === "checkpoints" && <Checkpoints />}
      {overlay.value === "settings" && <SettingsPanel />}
      {overlay.value === "help" && <Help />}
      {overlay.value === "quickopen" && <QuickOpen />}
      {overlay.value === "search" && <SearchPanel />}
      {overlay.value === "replace" && <ReplacePanel />}
      {overlay.value === "document" && <LazyRunDocument />}
      <DecisionDialog />
    </div>
  );
}

/** Offered while an MCP client is connected: agents that propose through
 * Redline also write through their shell, so hold every change other
 * programs write in this folder for review. */
function ReviewOffer({ client }: { client: string }) {
  return (
    <div class="outside-alert offer" role="status" data-testid="review-offer">
      <span>
        <strong>{client}</strong> is connected over MCP. Agents also write files directly through their shell: hold every change other programs write in this folder for review?
      </span>
      <span class="spacer" />
      <button class="primary" data-testid="review-offer-accept" onClick={() => void acceptReviewOffer()}>
        Review changes here
      </button>
      <button data-testid="review-offer-decline" onClick={declineReview}>
        Not now
      </button>
    </div>
  );
}

/** Told at once when another program deletes, empties or cuts down notes
 * (or changes many at once): what happened, and one click to put it back. */
function OutsideAlert() {
  const alert = outsideAlert.value!;
  const names = alert.files.slice(0, 3).join(", ") + (alert.files.length > 3 ? ` and ${alert.files.length - 3} more` : "");
  return (
    <div class="outside-alert" role="alert" data-testid="outside-alert">
      <span>
        Another program deleted, emptied or cut down <strong>{names}</strong>. It is held for review; nothing else was lost.
      </span>
      <span class="spacer" />
      <button class="primary" data-testid="outside-restore" onClick={() => void restoreOutside()}>
        Restore
      </button>
      <button data-testid="outside-keep" onClick={() => (outsideAlert.value = null)} title="Keep it as it is now; its hunks stay in the review list">
        Dismiss
      </button>
    </div>
  );
}

/** The run as one document (`components/RunDocument.tsx`), its code loaded
 * when it is first opened: the job in the sidebar, else the review's first. */
function LazyRunDocument() {
  const view = useLoaded(() => import("./components/RunDocument"));
  const jobId = job.value?.job_id ?? reviewJobs.value[0]?.job_id ?? null;
  return view ? <view.RunDocument jobId={jobId} /> : null;
}
