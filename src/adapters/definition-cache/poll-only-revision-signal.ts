/**
 * The bounded mode's revision signal where nothing can carry a push: MariaDB
 * or SQLite without Redis. It sends and hears nothing; every node learns of
 * another node's change at its poll (WF_DEFINITION_CACHE_POLL). A node still
 * sees its own changes at once: changed() refreshes before it publishes.
 */
import type { RevisionSignal } from "../../engine/definition-cache/revision-signal-port.ts";

export function pollOnlyRevisionSignal(): RevisionSignal {
  return {
    kind: "poll",
    start: () => Promise.resolve(),
    publish: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}
