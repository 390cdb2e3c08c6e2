// Settings: the provider, model, base URL and key (write-only: the engine
// keeps it in the OS keychain and shows only a hint), the agent mode, the
// limits, and the local model servers found on this machine (Ollama, LM
// Studio, llama.cpp, vLLM); the model fields offer the server's model list;
// and what becomes of changes other programs write to the folder.

import { useEffect, useState } from "preact/hooks";
import { api } from "../api/client";
import type { AgentMode, LimitField, Limits, LocalServer, OutsideMode, ProviderKind, ProviderSettings, ProviderView, Settings, SettingsUpdate } from "../api/types";
import { loadSetup } from "../state/setup";
import { attempt, overlay, setup, tell } from "../state/store";
import { Overlay } from "./Overlay";

/** Why `text` cannot be the limit `field`, in the engine's words; `null`
 * when it can. */
export function limitProblem(field: LimitField, text: string): string | null {
  const n = Number(text);
  if (text.trim() !== "" && Number.isSafeInteger(n) && n >= field.min && n <= field.max) return null;
  const range = `${field.min.toLocaleString("en-US")} to ${field.max.toLocaleString("en-US")}`;
  return `${field.label} must be a whole number from ${range}; ${text.trim() === "" ? "nothing" : text.trim()} is not`;
}

/** Why the limit `field` is above the limit it may not exceed (a default
 * above its cap), in the engine's words, with each limit's value as
 * `valueOf` gives it; `null` when it is not. */
export function capProblem(field: LimitField, fields: LimitField[], valueOf: (key: string) => number): string | null {
  const cap = fields.find((f) => f.key === field.at_most);
  if (!cap) return null;
  const [d, c] = [valueOf(field.key), valueOf(cap.key)];
  if (!(d > c)) return null;
  return `${field.label} (${d.toLocaleString("en-US")}) may not be more than ${cap.label.toLowerCase()} (${c.toLocaleString("en-US")})`;
}

/** What is wrong with a provider's model and base URL, in the engine's
 * words; each `null` when nothing is. */
export function providerProblems(which: string, value: ProviderSettings): { model: string | null; base_url: string | null } {
  const url = value.base_url;
  return {
    model: value.model.trim() === "" ? `${which}: the model name is empty` : null,
    base_url: url && !/^https?:\/\//.test(url) ? `${which}: the base URL must start with http:// or https://; \`${url}\` does not` : null,
  };
}

/** Each provider's name as the settings say it. */
const PROVIDER_WORDS: Record<string, string> = { remote: "Remote provider", local: "Local model" };

function plain(view: ProviderView): ProviderSettings {
  const { provider, model, base_url, temperature, require_tools, max_output_tokens } = view;
  return { provider, model, base_url, temperature, require_tools, max_output_tokens };
}

export function SettingsPanel() {
  const [settings, setSettings] = useState<Settings | null>(null);
  const [mode, setMode] = useState<AgentMode>("remote");
  const [outside, setOutside] = useState<OutsideMode>("record");
  // The open folder's own mode; "" follows the one above.
  const [folderOutside, setFolderOutside] = useState<OutsideMode | "">("");
  const [remote, setRemote] = useState<ProviderSettings | null>(null);
  const [local, setLocal] = useState<ProviderSettings | null>(null);
  // The limits as typed, by key: checked as they are typed, sent as numbers.
  const [limits, setLimits] = useState<Partial<Record<keyof Limits, string>>>({});
  const [key, setKey] = useState("");
  const servers: LocalServer[] = setup.value?.local_servers ?? [];

  const take = (s: Settings) => {
    setSettings(s);
    setMode(s.agent_mode);
    setOutside(s.outside_changes);
    setFolderOutside(s.folder_settings.outside_changes ?? "");
    setRemote(plain(s.remote));
    setLocal(plain(s.local));
    setLimits({});
  };
  useEffect(() => {
    void attempt("Loading settings", () => api.settings()).then((s) => s && take(s));
    void loadSetup();
  }, []);
  if (!settings || !remote || !local) return null;

  const valueOf = (k: string) => Number(limits[k as keyof Limits] ?? settings.limits[k as keyof Limits]);
  /** What is wrong with the limit `f` as typed: its range, then its cap. */
  const problemOf = (f: LimitField) => {
    const typed = limits[f.key as keyof Limits];
    return (typed === undefined ? null : limitProblem(f, typed)) ?? capProblem(f, settings.limit_fields, valueOf);
  };
  const save = async () => {
    const update: SettingsUpdate = { agent_mode: mode, outside_changes: outside, remote, local };
    if (settings.folder) update.folder_settings = { outside_changes: folderOutside || null };
    // A value out of shape is marked where it is and not sent.
    const wrong = [
      ...[providerProblems(PROVIDER_WORDS.remote, remote), providerProblems(PROVIDER_WORDS.local, local)].flatMap((p) => [p.model, p.base_url]),
      ...settings.limit_fields.map(problemOf),
    ].find((p) => p !== null);
    if (wrong) {
      tell("error", `Not saved: ${wrong}`);
      return;
    }
    if (Object.keys(limits).length > 0) update.limits = Object.fromEntries(Object.entries(limits).map(([k, v]) => [k, Number(v)]));
    if (key.trim()) update.api_key = { provider: remote.provider, key: key.trim() };
    const saved = await attempt("Saving settings", () => api.updateSettings(update));
    if (!saved) return;
    take(saved.settings);
    setKey("");
    void loadSetup();
    const where = saved.key_storage === "keychain" ? "; the key is in the OS keychain" : saved.key_storage === "memory" ? "; no keychain here, so the key lasts until Redline stops" : "";
    tell("info", `Settings saved${saved.settings.config_file ? ` to ${saved.settings.config_file}` : ""}${where}`);
  };

  const useServer = (server: LocalServer, model: string) => {
    setLocal({ ...local, provider: "openai", base_url: server.base_url, model });
    setMode("local");
  };

  return (
    <Overlay class="settings" label="Settings" testid="settings" close={() => (overlay.value = "none")}>
        <header>
          <h2>Settings</h2>
          <span class="spacer" />
          <button onClick={() => (overlay.value = "none")}>Close</button>
          <button class="primary" data-testid="settings-save" onClick={() => void save()}>
            Save
          </button>
        </header>
        <div class="settings-body">
          <label class="field">
            <span>Agent mode</span>
            <select data-testid="agent-mode" value={mode} onChange={(e) => setMode(e.currentTarget.value as AgentMode)}>
              <option value="remote">Remote provider</option>
              <option value="local">Local model</option>
              <option value="hybrid_auto">Local first, remote when it fails</option>
            </select>
          </label>
          <label class="field">
            <span>Changes other programs write</span>
            <select data-testid="outside-changes" value={outside} onChange={(e) => setOutside(e.currentTarget.value as OutsideMode)}>
              <option value="record">Keep and list them; hold deletions and big cuts for review</option>
              <option value="review">Hold every one for review (while an agent works in a terminal)</option>
              <option value="off">Ignore them</option>
            </select>
          </label>
          {settings.folder && (
            <label class="field">
              <span title={settings.folder}>… in this folder</span>
              <select data-testid="folder-outside-changes" value={folderOutside} onChange={(e) => setFolderOutside(e.currentTarget.value as OutsideMode | "")}>
                <option value="">As above</option>
                <option value="record">Keep and list them</option>
                <option value="review">Hold every one for review</option>
                <option value="off">Ignore them</option>
              </select>
            </label>
          )}
          <fieldset>
            <legend>Remote provider</legend>
            <Provider name="remote" value={remote} onChange={setRemote} effective={settings.remote.effective_base_url} />
            <label class="field">
              <span>API key</span>
              <input
                type="password"
                autoComplete="off"
                data-testid="api-key"
                value={key}
                onInput={(e) => setKey(e.currentTarget.value)}
                placeholder={settings.remote.key_hint ? `set (${settings.remote.key_hint}); type to replace` : "not set"}
              />
            </label>
          </fieldset>
          <fieldset>
            <legend>Local model</legend>
            {servers.length > 0 ? (
              servers.map((server) => (
                <div class="found-server" data-testid="found-server" key={server.base_url}>
                  {server.label} is running at {server.base_url}.{server.models.length === 0 ? " It lists no models yet." : " Use one of its models:"}
                  <div class="row wrap">
                    {server.models.map((m) => (
                      <button key={m} data-testid="server-model" onClick={() => useServer(server, m)}>
                        {m}
                      </button>
                    ))}
                  </div>
                </div>
              ))
            ) : (
              <p class="muted">No local model server answered on the usual ports (Ollama 11434, LM Studio 1234, llama.cpp 8080, vLLM 8000).</p>
            )}
            <Provider name="local" value={local} onChange={setLocal} effective={settings.local.effective_base_url} />
          </fieldset>
          <fieldset>
            <legend>Limits</legend>
            <div class="limits">
              {settings.limit_fields.map((f) => {
                const k = f.key as keyof Limits;
                const typed = limits[k];
                const problem = problemOf(f);
                return (
                  <label key={k} class="field" title={k}>
                    <span>{f.label}</span>
                    <input
                      type="number"
                      min={f.min}
                      max={f.max}
                      step={1}
                      data-testid={`limit-${k}`}
                      aria-invalid={problem !== null}
                      class={problem ? "invalid" : undefined}
                      value={typed ?? String(settings.limits[k])}
                      onInput={(e) => setLimits({ ...limits, [k]: e.currentTarget.value })}
                    />
                    {problem && (
                      <span class="field-error" role="alert" data-testid={`limit-error-${k}`}>
                        {problem}
                      </span>
                    )}
                  </label>
                );
              })}
            </div>
          </fieldset>
        </div>
    </Overlay>
  );
}

function Provider({ name, value, onChange, effective }: { name: string; value: ProviderSettings; onChange: (v: ProviderSettings) => void; effective: string }) {
  // The server's model list, for OpenAI-compatible servers at a base URL of
  // their own (a hosted service's list needs its key, and is long).
  const [models, setModels] = useState<string[]>([]);
  const url = value.provider === "openai" ? value.base_url : null;
  const problems = providerProblems(PROVIDER_WORDS[name] ?? name, value);
  useEffect(() => {
    setModels([]);
    if (!url) return;
    const ask = setTimeout(() => void api.models({ base_url: url }).then((l) => setModels(l.models), () => setModels([])), 300);
    return () => clearTimeout(ask);
  }, [url]);
  return (
    <>
      <label class="field">
        <span>Wire format</span>
        <select data-testid={`${name}-provider`} value={value.provider} onChange={(e) => onChange({ ...value, provider: e.currentTarget.value as ProviderKind })}>
          <option value="openai">OpenAI chat completions (and compatible servers)</option>
          <option value="anthropic">Anthropic messages</option>
        </select>
      </label>
      <label class="field">
        <span>Model</span>
        <input
          data-testid={`${name}-model`}
          list={`${name}-models`}
          aria-invalid={problems.model !== null}
          class={problems.model ? "invalid" : undefined}
          value={value.model}
          onInput={(e) => onChange({ ...value, model: e.currentTarget.value })}
        />
        <datalist id={`${name}-models`} data-testid={`${name}-models`}>
          {models.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
        {problems.model && (
          <span class="field-error" role="alert" data-testid={`${name}-model-error`}>
            {problems.model}
          </span>
        )}
      </label>
      <label class="field">
        <span>Base URL</span>
        <input
          data-testid={`${name}-base-url`}
          aria-invalid={problems.base_url !== null}
          class={problems.base_url ? "invalid" : undefined}
          value={value.base_url ?? ""}
          placeholder={effective}
          onInput={(e) => onChange({ ...value, base_url: e.currentTarget.value.trim() || null })}
        />
        {problems.base_url && (
          <span class="field-error" role="alert" data-testid={`${name}-base-url-error`}>
            {problems.base_url}
          </span>
        )}
      </label>
    </>
  );
}
