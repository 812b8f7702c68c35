/**
 * The key of one cached read: `<prefix>v2:<deployment id>:<revision>:<sha256 hex>`.
 *
 * - prefix: a namespace (WF_DEFINITION_CACHE_PREFIX), so deployments and
 *   tests can share one Redis.
 * - v2: the layout of this key and of the payload; a release that changes
 *   either bumps it, so old and new nodes never read each other's entries
 *   (v1 had no deployment id).
 * - deployment id: the identity stored in the deployment's database
 *   (src/domain/deployment-id.ts). Revisions are per database: two databases
 *   on one Redis with one prefix both reach revision 4, and without the id
 *   the second would be served the first one's definitions.
 * - revision: the cache revision the read was made under (see
 *   cache-provider-port.ts); a committed change moves it, and every older key is
 *   simply never asked for again.
 * - the hash covers the full type name of the result and every input that
 *   shapes it (tenant, operation, page, sort, filters): page 1 is never served
 *   for page 2, a page of definitions never for a page of triggers, one
 *   tenant's result never for another's. Hashing keeps keys short and free of
 *   tenant data whatever the inputs hold.
 */
import { createHash } from "node:crypto";
import { checkDeploymentId } from "../../domain/deployment-id.ts";

export const CACHE_KEY_VERSION = "v2";

export interface LogicalKey {
  readonly tenant: string;
  /** e.g. "definitions.get", "definitions.list", "triggers.byEvent". */
  readonly operation: string;
  /** The operation's inputs (ids, filters, page, sort): any JSON object. */
  readonly args?: Readonly<Record<string, unknown>> | undefined;
  readonly page?: unknown;
  readonly sort?: unknown;
}

export interface CacheKeyInput {
  readonly prefix: string;
  /** The deployment's identity (Database.deploymentId). */
  readonly deployment: string;
  /** A non-negative integer (a bigint or a digit string from the database also does). */
  readonly revision: number | bigint | string;
  /** The full name of the result's type, e.g. "Page<DefinitionSummary>", not "Page". */
  readonly typeName: string;
  readonly logical: LogicalKey;
}

export function cacheKey(input: CacheKeyInput): string {
  const revision = String(input.revision);
  if (!/^(0|[1-9][0-9]*)$/.test(revision)) {
    throw new RangeError(`cache revision ${JSON.stringify(revision)} is not a whole number`);
  }
  if (input.typeName === "") throw new RangeError("cache key needs the result's type name");
  const material = canonicalJson([
    input.typeName,
    input.logical.tenant,
    input.logical.operation,
    input.logical.args ?? null,
    input.logical.page ?? null,
    input.logical.sort ?? null,
  ]);
  const hash = createHash("sha256").update(material).digest("hex");
  const deployment = checkDeploymentId(input.deployment);
  return `${input.prefix}${CACHE_KEY_VERSION}:${deployment}:${revision}:${hash}`;
}

/**
 * JSON with object keys sorted at every level: { a, b } and { b, a } are the
 * same inputs and must give the same key. A JSON array keeps its order (a sort
 * order's fields are ordered).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}
