/**
 * The Console's API keys are its tenant's (docs/console.md, "One Console, one tenant").
 * The engine's key routes answer every tenant's keys to a key of every tenant, which is
 * what the Console holds; so the Console narrows them itself, before and after it
 * forwards:
 *
 * - `GET keys` answers only the keys scoped to the Console's tenant: keys of other
 *   tenants, and keys of every tenant (tenant null), are not shown.
 * - `POST keys` mints a key scoped to the Console's tenant. A body naming another tenant,
 *   or `null` (every tenant), is refused (403): an admin of one tenant would otherwise
 *   mint a key that reads every tenant's runs.
 * - `POST keys/{id}/revoke` and `/rotate` act only on a key of the Console's tenant. Any
 *   other id is 404, as an unknown one, so the page does not tell which ids exist
 *   elsewhere. A key's tenant never changes (a rotation keeps it), so the check before
 *   the call still holds when it runs.
 * - Any other `keys/…` route is not forwarded (404).
 */
import { randomUUID } from "node:crypto";
import { taskflowError } from "../domain/errors.ts";
import type { EngineTarget, ForwardAnswer, ForwardRequest } from "./engine-forwarder.ts";
import { forward } from "./engine-forwarder.ts";

interface KeyListing {
  id?: unknown;
  tenant?: unknown;
}

/** True for the routes this file handles: `keys` and anything under it. */
export const isKeyRoute = (segments: readonly string[]): boolean => segments[0] === "keys";

/** Forwards a key route for the Console's tenant only (see the header). */
export async function forwardTenantKeys(
  engine: EngineTarget,
  segments: readonly string[],
  r: ForwardRequest,
): Promise<ForwardAnswer> {
  const tenant = engine.tenantId;
  const [, id, action, ...rest] = segments;
  if (segments.length === 1 && r.method === "GET") {
    const answer = await forward(engine, r);
    return answer.status === 200 ? onlyTenant(answer, tenant) : answer;
  }
  if (segments.length === 1 && r.method === "POST") {
    return forward(engine, { ...r, body: scopedBody(r.body, tenant) });
  }
  if (
    r.method === "POST" &&
    id !== undefined &&
    (action === "revoke" || action === "rotate") &&
    rest.length === 0
  ) {
    const owner = await tenantOfKey(engine, r, id);
    if (owner.answer !== undefined) return owner.answer;
    if (owner.tenant !== tenant)
      throw taskflowError("ApiKeyNotFound", { what: "API key", keyId: id });
    return forward(engine, r);
  }
  const route = `${r.method} ${segments.join("/").slice(0, 200)}`;
  throw taskflowError("RouteNotFound", { detail: `Console route '${route}' was not found` });
}

/** The create body with the Console's tenant; refused when it asks for another scope. */
function scopedBody(body: Buffer | undefined, tenant: string): Buffer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body?.toString("utf8") ?? "");
  } catch {
    throw taskflowError("BodyNotObject");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw taskflowError("BodyNotObject");
  }
  const asked: unknown = (parsed as Record<string, unknown>).tenant;
  if (asked !== undefined && asked !== tenant) {
    throw taskflowError("TenantKeysOnly", {
      detail:
        `this Console mints keys of tenant '${tenant}' only` +
        (asked === null ? ", never a key of every tenant" : ""),
    });
  }
  return Buffer.from(JSON.stringify({ ...parsed, tenant }));
}

/** The engine's key list with only the tenant's keys. */
function onlyTenant(answer: ForwardAnswer, tenant: string): ForwardAnswer {
  const items = listed(answer.body);
  if (items === null) throw new Error("the engine's key list is not { items: [...] }");
  const mine = items.filter((k) => k.tenant === tenant);
  return { ...answer, body: Buffer.from(JSON.stringify({ items: mine })) };
}

/** The tenant of key `id` (null: every tenant; undefined: no such key), or the engine's refusal. */
async function tenantOfKey(
  engine: EngineTarget,
  r: ForwardRequest,
  id: string,
): Promise<{ tenant?: unknown; answer?: ForwardAnswer }> {
  const answer = await forward(engine, {
    ...r,
    method: "GET",
    pathAndQuery: "keys",
    requestId: randomUUID(),
    contentType: undefined,
    idempotencyKey: undefined,
    body: undefined,
  });
  if (answer.status !== 200) return { answer };
  const items = listed(answer.body);
  if (items === null) throw new Error("the engine's key list is not { items: [...] }");
  return { tenant: items.find((k) => k.id === id)?.tenant };
}

function listed(body: Buffer): KeyListing[] | null {
  try {
    const parsed = JSON.parse(body.toString("utf8")) as { items?: unknown };
    return Array.isArray(parsed.items) ? (parsed.items as KeyListing[]) : null;
  } catch {
    return null;
  }
}
