/**
 * Holds a lock that keeps every other session from reading a table, from a
 * session of its own, until released: a request that still answers while it
 * is held did not read that table. PostgreSQL: ACCESS EXCLUSIVE in an open
 * transaction (it conflicts with the ACCESS SHARE of a plain SELECT);
 * MariaDB: LOCK TABLES … WRITE (other sessions' reads wait for it).
 */
import pg from "pg";
import { createConnection } from "mysql2/promise";

export interface TableLock {
  release(): Promise<void>;
}

export async function holdTableLock(
  backend: "postgres" | "mysql",
  url: string,
  table: string,
): Promise<TableLock> {
  if (!/^[a-z_]+$/.test(table)) throw new RangeError(`not a plain table name: ${table}`);
  if (backend === "postgres") {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query("begin");
    await client.query(`lock table ${table} in access exclusive mode`);
    return {
      async release() {
        await client.query("rollback");
        await client.end();
      },
    };
  }
  const conn = await createConnection({ uri: url });
  await conn.query(`lock tables ${table} write`);
  return {
    async release() {
      await conn.query("unlock tables");
      await conn.end();
    },
  };
}
