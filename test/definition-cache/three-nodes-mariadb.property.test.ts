/**
 * The three-node property (support/three-nodes-property.ts) on MariaDB with
 * each node's memory provider and SQL coordination — no Redis at all — in
 * strict and bounded mode.
 */
import { deployments, threeNodeSuites } from "./support/three-nodes-property.ts";

await threeNodeSuites(deployments.mariadbMemory);
