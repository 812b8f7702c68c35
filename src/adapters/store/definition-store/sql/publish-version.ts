/**
 * Publishing: one transaction that creates the plain definition row unless
 * the key has one, locks it, takes max(version) + 1, inserts the version and
 * — when the draft is what is published — deletes the draft if it is still
 * the text that was validated. A definition the engine finds to be the
 * published head over again (sameAsHead) writes no version.
 *
 * Why a lock and not "insert, and retry on a duplicate number": the lock on
 * the key's `definitions` row makes concurrent publishes of one key queue,
 * so each reads the max its predecessor committed (READ COMMITTED gives each
 * statement a fresh snapshot on PostgreSQL and MariaDB; SQLite runs write
 * transactions one at a time and has no row locks). Twenty publishes at once
 * then take twenty turns instead of up to 190 failed inserts. The primary key
 * (tenant_id, key, version) stays the backstop: a number can never be given
 * twice. A deadlock (MariaDB's insert-if-absent of a new key by many
 * transactions at once) rolls everything back and is retried.
 *
 * Before that, the tenant's revision row is raised (raise-tenant-revision.ts):
 * every publish of the tenant queues there, so the checks across its
 * definitions (`checkHeads`: two keys must not take one trigger route) read
 * the heads the previous publish committed, never a state another publish is
 * about to change. Checking before the transaction let two keys publish one
 * route at the same moment. Tenant row first, key row second: one order, no
 * deadlock between them.
 */
import { DRAFT_VERSION } from "../../../../domain/definition-version.ts";
import { newId } from "../../../../domain/ids.ts";
import type {
  PublishOutcome,
  PublishVersion,
} from "../../../../engine/definitions/definition-version-store-port.ts";
import type { Kysely, Transaction } from "kysely";
import type { StoreSchema } from "../../db-schema.ts";
import { DriverErrorKind } from "../../dialects/driver-error.ts";
import type { StoreDialect } from "../../dialects/store-dialect.ts";
import { ensureDefinition } from "../../sql/ensure-definition.ts";
import { publishedHeads } from "./published-heads.ts";
import { raiseTenantRevision } from "./raise-tenant-revision.ts";

const MAX_ATTEMPTS = 8;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Thrown inside the transaction to roll it back: the draft is gone or no longer as validated. */
class DraftChanged extends Error {}

export async function publishVersion(
  db: Kysely<StoreSchema>,
  parts: StoreDialect,
  cmd: PublishVersion,
): Promise<PublishOutcome> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute((trx) => publishIn(trx, parts, cmd));
    } catch (e) {
      if (e instanceof DraftChanged) return { published: false, because: "draft" };
      const kind = parts.classifyError(e);
      const retryable = kind === DriverErrorKind.Deadlock || kind === DriverErrorKind.Serialization;
      if (!retryable || attempt >= MAX_ATTEMPTS) throw e;
      // Apart, so the transactions that deadlocked do not meet again at once.
      await sleep(Math.random() * 20 * attempt);
    }
  }
}

async function publishIn(
  trx: Transaction<StoreSchema>,
  parts: StoreDialect,
  cmd: PublishVersion,
): Promise<PublishOutcome> {
  await raiseTenantRevision(trx, parts, cmd.tenantId);
  const heads = await publishedHeads(trx, cmd.tenantId);
  // Throws to roll back: the check's error is what the publish answers.
  cmd.checkHeads?.(heads);
  await ensureDefinition(trx, parts, {
    id: newId(),
    tenantId: cmd.tenantId,
    key: cmd.key,
    name: cmd.name,
    createdAt: cmd.at,
  });
  if (parts.rowLocks) {
    await trx
      .selectFrom("definitions")
      .select("id")
      .where("tenant_id", "=", cmd.tenantId)
      .where("key", "=", cmd.key)
      .forUpdate()
      .execute();
  }
  if (cmd.consumesDraft !== undefined) {
    const deleted = await trx
      .deleteFrom("definition_versions")
      .where("tenant_id", "=", cmd.tenantId)
      .where("key", "=", cmd.key)
      .where("version", "=", DRAFT_VERSION)
      .where("body", "=", cmd.consumesDraft.body)
      .executeTakeFirst();
    // Rolls back the definition row too: a refused publish writes nothing.
    if (Number(deleted.numDeletedRows) !== 1) throw new DraftChanged();
  }
  // The head as this transaction sees it: the tenant's publishes queue on its revision row.
  const head = heads.find((h) => h.key === cmd.key);
  if (head !== undefined && cmd.sameAsHead?.(head) === true) {
    return { published: true, version: head.version, unchanged: true };
  }
  const top = await trx
    .selectFrom("definition_versions")
    .select((eb) => eb.fn.max("version").as("top"))
    .where("tenant_id", "=", cmd.tenantId)
    .where("key", "=", cmd.key)
    .executeTakeFirst();
  const version = Number(top?.top ?? 0) + 1;
  await trx
    .insertInto("definition_versions")
    .values({
      tenant_id: cmd.tenantId,
      key: cmd.key,
      version,
      status: "published",
      body: JSON.stringify({ ...cmd.definition, version }),
      created_at: cmd.at,
      published_at: cmd.at,
      created_by: cmd.createdBy,
    })
    .execute();
  return { published: true, version };
}
