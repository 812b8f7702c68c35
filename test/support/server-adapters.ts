/**
 * The adapters a test's hand-built server gets (buildServer picks none, the
 * composition root does): the directory the config describes and a memory
 * coordination of the server's own, as createTaskflow would not share it.
 */
import { openCoordination } from "../../src/adapters/coordination/open-coordination.ts";
import { createDirectory } from "../../src/adapters/directory/create-directory.ts";
import type { TaskflowConfig } from "../../src/config/config.ts";
import type { Coordination } from "../../src/engine/coordination/coordination-port.ts";
import type { Directory } from "../../src/engine/directory-port.ts";

export function serverAdapters(config: TaskflowConfig): {
  directory: Directory;
  ownCoordination: Coordination;
} {
  return {
    directory: createDirectory(config),
    ownCoordination: openCoordination({ kind: "memory", keyPrefix: config.keyPrefix }),
  };
}
