/**
 * Outside development a node must not serve an API nobody can call: it needs
 * WF_API_KEYS or at least one live stored key (`taskflow keys create`). The
 * stored keys can only be counted once the database is reachable and
 * migrated, so this runs at start, after the migrations, not in loadConfig.
 */
import { isDevelopment, type TaskflowConfig } from "../config/config.ts";
import { noApiKeys } from "../config/validate-config.ts";
import { ApiKeys } from "../engine/coordination/api-keys.ts";
import type { Coordination } from "../engine/coordination/coordination-port.ts";

export async function requireKeysAtStart(
  config: Pick<TaskflowConfig, "apiKeys" | "nodeEnv">,
  coordination: Pick<Coordination, "tokens">,
): Promise<void> {
  if (isDevelopment(config) || config.apiKeys.length > 0) return;
  let live: boolean;
  try {
    live = await new ApiKeys(coordination).hasLiveKey();
  } catch (e) {
    // Said as the missing setting it is: without WF_API_KEYS this node depends on them.
    throw noApiKeys(config, e instanceof Error ? e : new Error(String(e)));
  }
  if (!live) throw noApiKeys(config, true);
}
