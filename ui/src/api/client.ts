// Every route the UI uses, typed with the generated API types.

import { call } from "./transport";
import type {
  Applied,
  Checkpoint,
  ContextRow,
  Decided,
  EventPage,
  FeedPage,
  FileContent,
  Job,
  JobStarted,
  Keep,
  LocalModels,
  ProjectInfo,
  Resolved,
  RollbackReport,
  Session,
  SessionCreated,
  SessionDeleted,
  Settings,
  SettingsSaved,
  SettingsUpdate,
  Status,
  ThreeWay,
  TreeEntry,
} from "./types";

const q = encodeURIComponent;

export const api = {
  project: () => call<ProjectInfo>("GET", "/api/project"),

  tree: () => call<TreeEntry[]>("GET", "/api/files"),
  file: (path: string) => call<FileContent>("GET", `/api/files/content?path=${q(path)}`),
  edit: (path: string, text: string, base_hash: string) =>
    call<FileContent>("PUT", "/api/files/buffer", { path, text, base_hash }),
  save: (path: string) => call<FileContent>("POST", "/api/files/save", { path }),
  acceptAll: (path: string) => call<FileContent>("POST", "/api/files/accept_all", { path }),
  resolve: (path: string, keep: Keep) => call<Resolved>("POST", "/api/files/resolve", { path, keep }),
  feed: (cursor: number, wait_ms: number) =>
    call<FeedPage>("GET", `/api/events?cursor=${cursor}&wait_ms=${wait_ms}`),

  sessions: () => call<Session[]>("GET", "/api/agent/sessions"),
  session: (id: string) => call<Session>("GET", `/api/agent/sessions/${q(id)}`),
  createSession: () => call<SessionCreated>("POST", "/api/agent/sessions", {}),
  renameSession: (id: string, name: string) =>
    call<Session>("PATCH", `/api/agent/sessions/${q(id)}`, { name }),
  clearSession: (id: string) => call<Session>("POST", `/api/agent/sessions/${q(id)}/clear`),
  deleteSession: (id: string) => call<SessionDeleted>("DELETE", `/api/agent/sessions/${q(id)}`),

  run: (session_id: string, instruction: string, context_rows: ContextRow[]) =>
    call<JobStarted>("POST", "/api/agent/run", { session_id, instruction, context_rows }),
  job: (id: string) => call<Job>("GET", `/api/agent/jobs/${q(id)}`),
  events: (id: string, cursor: number, wait_ms: number) =>
    call<EventPage>("GET", `/api/agent/jobs/${q(id)}/events?cursor=${cursor}&wait_ms=${wait_ms}`),
  clarify: (id: string, question_id: string, answer: string | null) =>
    call<Job>("POST", `/api/agent/jobs/${q(id)}/clarify`, answer === null ? { question_id, skip: true } : { question_id, answer }),
  cancel: (id: string) => call<Job>("POST", `/api/agent/jobs/${q(id)}/cancel`),
  rerun: (id: string) => call<JobStarted>("POST", `/api/agent/jobs/${q(id)}/rerun`),

  decide: (hunk: string, status: Status) =>
    call<Decided>("POST", `/api/agent/hunks/${q(hunk)}/decide`, { status }),
  apply: (session_id: string, job_id: string, accepted_hunk_ids: string[]) =>
    call<Applied>("POST", "/api/agent/apply", { session_id, job_id, accepted_hunk_ids }),

  checkpoints: () => call<Checkpoint[]>("GET", "/api/agent/checkpoints"),
  diff3: (id: string, file_path: string) =>
    call<ThreeWay>("GET", `/api/agent/checkpoints/${q(id)}/diff3?file_path=${q(file_path)}`),
  rollbackAll: (id: string) =>
    call<RollbackReport>("POST", `/api/agent/checkpoints/${q(id)}/rollback`, { mode: "hard_all" }),
  rollbackHunks: (id: string, hunk_ids: string[]) =>
    call<RollbackReport>("POST", `/api/agent/checkpoints/${q(id)}/rollback`, { mode: "scoped_selected", hunk_ids }),

  settings: () => call<Settings>("GET", "/api/settings"),
  updateSettings: (update: SettingsUpdate) => call<SettingsSaved>("PUT", "/api/settings", update),
  localModels: () => call<LocalModels>("GET", "/api/settings/local_models"),
};
