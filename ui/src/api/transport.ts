// The one way the UI reaches Redline: the same routes, the same JSON, over
// two doors. Inside the desktop app, a Tauri command (`api`) answers them
// in-process; in a browser, `redline serve` answers them over HTTP with the
// per-launch token the served URL carried.

import type { ErrorResponse, LocalReply, LocalRequest } from "./types";

/** A refused or failed call: the API's error code and message. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

interface Door {
  send(request: LocalRequest): Promise<LocalReply>;
}

declare global {
  interface Window {
    __TAURI_INTERNALS__?: unknown;
  }
}

/** Whether the UI runs inside the desktop app. */
export const inDesktop = typeof window !== "undefined" && window.__TAURI_INTERNALS__ !== undefined;

const TOKEN_KEY = "redline.token";

/** The token from the served URL, kept for reloads and then taken out of the address bar. */
function browserToken(): string {
  const url = new URL(window.location.href);
  const given = url.searchParams.get("token");
  if (given) {
    sessionStorage.setItem(TOKEN_KEY, given);
    url.searchParams.delete("token");
    history.replaceState(null, "", url.toString());
    return given;
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? "";
}

function httpDoor(): Door {
  const token = browserToken();
  return {
    async send({ method, path, body }) {
      const response = await fetch(path, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
  };
}

function desktopDoor(): Door {
  return {
    async send(request) {
      const { invoke } = await import("@tauri-apps/api/core");
      return invoke<LocalReply>("api", { request });
    },
  };
}

let door: Door | undefined;

/** Calls one route; resolves to its JSON body, or rejects with an {@link ApiFailure}. */
export async function call<T>(method: Method, path: string, body?: unknown): Promise<T> {
  door ??= inDesktop ? desktopDoor() : httpDoor();
  let reply: LocalReply;
  try {
    reply = await door.send({ method, path, body: body as LocalRequest["body"] });
  } catch (e) {
    throw new ApiFailure(0, "unreachable", `Redline did not answer: ${String(e)}`);
  }
  if (reply.status >= 200 && reply.status < 300) return reply.body as T;
  const error = (reply.body as ErrorResponse | null)?.error;
  throw new ApiFailure(reply.status, error?.code ?? "internal", error?.message ?? `HTTP ${reply.status}`);
}

/** Calls one of the desktop shell's own commands (folders); undefined in a browser. */
export async function shell<T>(command: string, args?: Record<string, unknown>): Promise<T | undefined> {
  if (!inDesktop) return undefined;
  const { invoke } = await import("@tauri-apps/api/core");
  return invoke<T>(command, args);
}
