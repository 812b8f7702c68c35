/** Reads the deployment's identity (migration 013): once per node, after migrating. */
import type { Kysely } from "kysely";
import { checkDeploymentId } from "../../domain/deployment-id.ts";
import type { StoreSchema } from "./db-schema.ts";

export async function readDeploymentId(db: Kysely<StoreSchema>, target: string): Promise<string> {
  const rows = await db.selectFrom("deployment_identity").select("id").limit(2).execute();
  const [row, other] = rows;
  // Migration 013 writes exactly one; anything else is a database changed by hand.
  if (row === undefined || other !== undefined) {
    throw new Error(
      `DATABASE_URL ${target}: deployment_identity holds ${rows.length === 0 ? "no row" : "more than one row"}; ` +
        "it must hold the one id migration 013 wrote (restore it from a backup)",
    );
  }
  return checkDeploymentId(row.id);
}
