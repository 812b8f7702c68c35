import { readFileSync } from "node:fs";
import { ConfigError } from "./config-error.ts";
import { ConfigKeys, type ConfigKey } from "./config.ts";
import { settingsOf, type Layer } from "./layers.ts";

export type ReadFile = (path: string) => string;

const readUtf8: ReadFile = (path) => readFileSync(path, "utf8");

/**
 * The optional JSON config file: an object whose keys are the config keys
 * (addr, databaseUrl, users, groups, apiKeys, nodeEnv, bodyLimit, logLevel, rateLimit,
 * exposeErrorStacks, maxInFlight, maxEventLoopDelay, runMaxHistory, runQuarantineAfter, sqliteSynchronous,
 * idempotencyMarkerTtl, ...; config.ts lists them all).
 * Unknown keys are refused so that a typo does not silently fall back to a default.
 */
export function fileLayer(path: string, readFile: ReadFile = readUtf8): Layer {
  const layer = `config file ${path}`;
  const parsed = parseJson(layer, readText(layer, path, readFile));
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ConfigError([`${layer}: must contain a JSON object`]);
  }
  const unknown = Object.keys(parsed).filter((k) => !ConfigKeys.includes(k as ConfigKey));
  if (unknown.length > 0) {
    throw new ConfigError(
      unknown.map((k) => `${layer} ${k}: unknown key (known: ${ConfigKeys.join(", ")})`),
    );
  }
  return settingsOf(layer, parsed, (k, s) => `${k}.${s}`);
}

function readText(layer: string, path: string, readFile: ReadFile): string {
  try {
    return readFile(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? "unreadable";
    throw new ConfigError([`${layer}: cannot be read (${code})`]);
  }
}

function parseJson(layer: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new ConfigError([`${layer}: is not valid JSON (${(e as Error).message})`]);
  }
}
