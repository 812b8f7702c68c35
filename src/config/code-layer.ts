import { ConfigError } from "./config-error.ts";
import { ConfigKeys, type ConfigKey, type ConfigOverrides } from "./config.ts";
import { settingsOf, type Layer } from "./layers.ts";

const LAYER = "code overrides";

/** The last layer: values an embedding app or a test passes in code. */
export function codeLayer(overrides: ConfigOverrides): Layer {
  // Overrides may come from untyped callers (plain JS); refuse typos the same way a file does.
  const unknown = Object.keys(overrides).filter((k) => !ConfigKeys.includes(k as ConfigKey));
  if (unknown.length > 0) {
    throw new ConfigError(unknown.map((k) => `${LAYER} ${k}: unknown key`));
  }
  return settingsOf(LAYER, overrides, (k, s) => `${k}.${s}`);
}
