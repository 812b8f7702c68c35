/**
 * CPU time from /proc/<pid>/stat (utime + stime, every thread of the process),
 * for "CPU per cycle" figures: on a shared 2-core machine throughput hides what
 * each process costs, CPU per unit of work does not. Clock ticks (10 ms) are
 * ample over a window of seconds.
 *
 * PostgreSQL's share (PgCpu) is the sum over
 * - the client backends connected to the measured database (the server's pool),
 *   without the sampler's own connection, and
 * - the cluster's background processes (walwriter, checkpointer, background
 *   writer, autovacuum, …: `backend_type <> 'client backend'` with no database
 *   or this one), which do part of every commit's work (WAL writes).
 * Client backends of other databases (other people's tests and benches on the
 * same cluster) are left out. A backend that appears during the window counts
 * whole; one that exits during it is lost, so the servers keep their pools.
 */
import { readFileSync } from "node:fs";
import pg from "pg";

const TICK_MS = 10; // USER_HZ = 100 on Linux

/** utime + stime of one process in ms, or undefined when it is gone or /proc is unreadable. */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(rest[11]) + Number(rest[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}

export type CpuSample = Map<number, number>;

/** CPU ms used between two samples; pids new in `after` count whole. */
export function cpuDelta(before: CpuSample, after: CpuSample): number {
  let ms = 0;
  for (const [pid, t] of after) ms += t - (before.get(pid) ?? 0);
  return ms;
}

export class PgCpu {
  private constructor(private readonly client: pg.Client) {}

  static async open(url: string): Promise<PgCpu> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return new PgCpu(client);
  }

  async sample(): Promise<CpuSample> {
    const r = await this.client.query<{ pid: number }>(
      `select pid from pg_stat_activity
        where pid <> pg_backend_pid()
          and ((backend_type = 'client backend' and datname = current_database())
               or (backend_type <> 'client backend'
                   and (datname is null or datname = current_database())))`,
    );
    const out: CpuSample = new Map();
    for (const { pid } of r.rows) {
      const ms = processCpuMs(pid);
      if (ms !== undefined) out.set(pid, ms);
    }
    return out;
  }

  close(): Promise<void> {
    return this.client.end();
  }
}
