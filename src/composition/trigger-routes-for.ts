/**
 * A node's trigger routes (composition root): the table follows the routes
 * revision of the definition cache's consistency, with the node-local lookup
 * cache in front of it when definition caching is on
 * (WF_DEFINITION_CACHE_ENABLED; its entries slide with WF_DEFINITION_CACHE_SLIDING).
 */
import type { TaskflowConfig } from "../config/config.ts";
import type { CacheManager } from "../engine/definition-cache/cache-manager.ts";
import { RouteLookupCache } from "../engine/definitions/triggers/route-lookup-cache.ts";
import {
  TriggerRoutes,
  type RefreshFailed,
  type RouteSource,
} from "../engine/definitions/triggers/trigger-routes.ts";

export function triggerRoutesFor(
  config: Pick<TaskflowConfig, "definitionCacheEnabled" | "definitionCacheSliding">,
  source: RouteSource,
  cache: Pick<CacheManager, "consistency">,
  onError: RefreshFailed,
): TriggerRoutes {
  const lookupCache = config.definitionCacheEnabled
    ? new RouteLookupCache({ slidingMs: config.definitionCacheSliding })
    : undefined;
  return new TriggerRoutes(source, { consistency: cache.consistency, lookupCache, onError });
}
