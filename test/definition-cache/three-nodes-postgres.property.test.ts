/**
 * The three-node property (support/three-nodes-property.ts) on PostgreSQL with
 * the shared Redis provider and Redis coordination, in strict and bounded mode.
 */
import { deployments, threeNodeSuites } from "./support/three-nodes-property.ts";

await threeNodeSuites(deployments.postgresRedis);
