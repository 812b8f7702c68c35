import { codeLayer } from "./code-layer.ts";
import type { ConfigOverrides, TaskflowConfig } from "./config.ts";
import { defaultsLayer } from "./defaults.ts";
import { CONFIG_FILE_VARIABLE, envLayer } from "./env-layer.ts";
import { fileLayer, type ReadFile } from "./file-layer.ts";
import { mergeLayers, type Layer } from "./layers.ts";
import { validateConfig } from "./validate-config.ts";

export interface LoadConfigOptions {
  /** The environment to read; defaults to process.env at call time (never at import time). */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Path of the JSON config file (the CLI's --config); else TASKFLOW_CONFIG; else none. */
  configFile?: string | undefined;
  /** Values set in code; they win over everything else. */
  overrides?: ConfigOverrides | undefined;
  /** See ValidateOptions.requireApiKeys. */
  requireApiKeys?: boolean | undefined;
  /** For tests. */
  readFile?: ReadFile | undefined;
}

/**
 * defaults → config file → environment → code overrides, merged key by key,
 * then validated once. Throws ConfigError naming the layer and the key.
 */
export function loadConfig(options: LoadConfigOptions = {}): TaskflowConfig {
  const env = options.env ?? process.env;
  const filePath = options.configFile ?? nonEmpty(env[CONFIG_FILE_VARIABLE]);
  const layers: Layer[] = [
    defaultsLayer(),
    filePath === undefined ? {} : fileLayer(filePath, options.readFile),
    envLayer(env),
    codeLayer(options.overrides ?? {}),
  ];
  return validateConfig(mergeLayers(layers), {
    requireApiKeys: options.requireApiKeys ?? true,
  });
}

const nonEmpty = (s: string | undefined) => (s === undefined || s.trim() === "" ? undefined : s);
