/**
 * Where each setting of a validated config came from (which layer, and the
 * key as that layer spells it), kept beside the frozen config rather than in
 * it: TaskflowConfig holds values only, and a config built in code (a test, an
 * embedding app spreading one) simply has no sources.
 *
 * Used by the checks that run after validation, when the host's own choices
 * are known too (createTaskflow's handed-in connections): their messages name
 * the setting as the operator wrote it, or say that it was never set.
 */
import type { ConfigKey, TaskflowConfig } from "./config.ts";
import type { Layer } from "./layers.ts";

export interface SettingSource {
  /** "defaults", "environment", "config file ./taskflow.json", "code overrides". */
  readonly layer: string;
  /** The key as that layer spells it: WF_DEFINITION_CACHE, definitionCache. */
  readonly name: string;
}

const sources = new WeakMap<TaskflowConfig, Partial<Record<ConfigKey, SettingSource>>>();

/** Remembers which layer set each key of `config` (called once, by validateConfig). */
export function recordSources(config: TaskflowConfig, merged: Layer): void {
  const out: Partial<Record<ConfigKey, SettingSource>> = {};
  for (const [key, setting] of Object.entries(merged) as [ConfigKey, Layer[ConfigKey]][]) {
    if (setting) out[key] = { layer: setting.layer, name: setting.name };
  }
  sources.set(config, out);
}

/** The layer that set `key`; undefined when the config was not made by loadConfig. */
export function sourceOf(config: TaskflowConfig, key: ConfigKey): SettingSource | undefined {
  return sources.get(config)?.[key];
}

/**
 * A setting and its value for a message: `environment WF_DEFINITION_CACHE=memory`,
 * `config file t.json definitionCache=memory`, or — left at its default —
 * `WF_DEFINITION_CACHE=memory (not set: the default)`. `envName` spells the key
 * when no layer set it.
 */
export function describeSetting(config: TaskflowConfig, key: ConfigKey, envName: string): string {
  const raw: unknown = config[key];
  const value = typeof raw === "string" ? raw : JSON.stringify(raw);
  const source = sourceOf(config, key);
  if (source === undefined) return `${envName}=${value}`;
  if (source.layer === "defaults") return `${envName}=${value} (not set: the default)`;
  return `${source.layer} ${source.name}=${value}`;
}
