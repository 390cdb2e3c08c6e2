// First run: whether a model can run jobs, and using one of the ways this
// machine offers (a local server, a key, the bundled model).

import { api } from "../api/client";
import type { SetupChoice } from "../api/types";
import { attempt, setup, tell } from "./store";

/** Asks the engine again (after a settings change, or a job that found no provider). */
export async function loadSetup() {
  const found = await attempt("Looking for a model", () => api.setup());
  if (found) setup.value = found;
}

/** Uses `choice`, saving it as settings; says what it did. */
export async function choose(choice: SetupChoice, what: string) {
  const saved = await attempt("Saving the setup", () => api.chooseSetup(choice));
  if (!saved) return;
  await loadSetup();
  const where = saved.key_storage === "memory" ? " (no keychain here: the key lasts until Redline stops)" : "";
  if (setup.value?.ready) tell("info", `Using ${what}${where}`);
  else tell("error", `${what} cannot be used yet: ${setup.value?.problems.join("; ") ?? "unknown"}`);
}
