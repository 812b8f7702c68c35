/**
 * CPU used by the PostgreSQL backends serving one database (the engine's
 * pool and listener connections), read from /proc/<pid>/stat: the server runs
 * on this machine, so "where the time goes" can be split between this process
 * and the database. Clock-tick resolution (10 ms) is ample over a phase of
 * hundreds of workflows. Undefined when /proc is not readable (remote server).
 */
import pg from "pg";
import { cpuDelta, processCpuMs as cpuMsOf } from "./proc-cpu.ts";

export class PgBackendCpu {
  private constructor(private readonly client: pg.Client) {}

  static async open(url: string): Promise<PgBackendCpu> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return new PgBackendCpu(client);
  }

  /** pid → CPU ms so far, for every other backend connected to this database. */
  async sample(): Promise<Map<number, number> | undefined> {
    const r = await this.client.query<{ pid: number }>(
      "select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()",
    );
    const out = new Map<number, number>();
    for (const { pid } of r.rows) {
      const ms = cpuMsOf(pid);
      if (ms === undefined) return undefined;
      out.set(pid, ms);
    }
    return out;
  }

  /** CPU ms the database's backends used between two samples (new backends count whole). */
  static delta(
    before: Map<number, number> | undefined,
    after: Map<number, number> | undefined,
  ): number | undefined {
    if (before === undefined || after === undefined) return undefined;
    return cpuDelta(before, after);
  }

  close(): Promise<void> {
    return this.client.end();
  }
}
