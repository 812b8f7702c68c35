import type { ConfigKey } from "./config.ts";

/** One raw value and where it came from, so an error can name the layer and the key. */
export interface Setting {
  /** e.g. "environment", "config file ./taskflow.json", "code overrides". */
  layer: string;
  /** The key as that layer spells it: ADDR in the environment, addr in a file. */
  name: string;
  value: unknown;
  /** How the layer spells a part of the key (WF_GROUP_ops, groups.ops). */
  subName?: (sub: string) => string;
}

export type Layer = Partial<Record<ConfigKey, Setting>>;

/** Later layers win key by key. */
export function mergeLayers(layers: readonly Layer[]): Layer {
  return Object.assign({}, ...layers) as Layer;
}

export function settingsOf(
  layer: string,
  values: Partial<Record<ConfigKey, unknown>>,
  subName?: (key: ConfigKey, sub: string) => string,
): Layer {
  const out: Layer = {};
  for (const [key, value] of Object.entries(values) as [ConfigKey, unknown][]) {
    if (value === undefined) continue;
    out[key] = {
      layer,
      name: key,
      value,
      ...(subName ? { subName: (sub: string) => subName(key, sub) } : {}),
    };
  }
  return out;
}
