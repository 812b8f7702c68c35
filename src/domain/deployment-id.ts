/**
 * A deployment's identity: a random id created with the schema (migration
 * 013) and stored in it, so every database has its own, whatever its URL or
 * the settings of the nodes on it. Every key a deployment writes into a
 * backend that others may share — Redis payloads of the definition cache, its
 * pub/sub channel, Redis coordination — carries it after the configured
 * prefix: two databases can never meet in one key space, even when an
 * operator gives both the same (or the default) WF_KEY_PREFIX and
 * WF_DEFINITION_CACHE_PREFIX on one Redis.
 */
import { randomBytes } from "node:crypto";

/** 128 random bits in lower-case hex: what migration 013 writes. */
export const newDeploymentId = (): string => randomBytes(16).toString("hex");

/** What a key may carry: the ids this release makes, and any a later one might (no ':'). */
const DEPLOYMENT_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function checkDeploymentId(id: string): string {
  if (!DEPLOYMENT_ID.test(id)) {
    throw new RangeError(
      `deployment id ${JSON.stringify(id.slice(0, 80))} is not 1–64 of [A-Za-z0-9_-]`,
    );
  }
  return id;
}

/** `<prefix><deployment id>:` — the key space of one deployment under a configured prefix. */
export const deploymentKeySpace = (prefix: string, deploymentId: string): string =>
  `${prefix}${checkDeploymentId(deploymentId)}:`;
