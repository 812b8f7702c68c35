/**
 * `taskflow worker`'s health listener on WF_WORKER_HEALTH_ADDR: /healthz (the
 * process is alive, its event loop turns) and /readyz (the store answers and
 * the worker's claim loop polls). Off when the setting is unset, so a server
 * and workers on one host do not contend for a port. Listening comes first, so
 * a taken port fails the start before migrations, naming the setting.
 */
import type { Logger } from "pino";
import type { HostLogger } from "./host-logger.ts";
import type { ListenAddress } from "../config/config.ts";
import type { Worker } from "../engine/durable/worker.ts";
import { buildHealthServer } from "../server/lifecycle/health-server.ts";
import { NotReady } from "../server/routes/readiness-route.ts";

export interface HealthListener {
  /** http://host:port, as it listens (port 0 resolved). */
  readonly address: string;
  close(): Promise<void>;
}

export async function listenForHealth(
  addr: Readonly<ListenAddress>,
  logger: HostLogger,
  /** A round trip to the store (Database.ping). */
  ping: () => Promise<void>,
  /** The worker, once it exists: before that (migrations) it is not polling yet. */
  worker: () => Worker | undefined,
): Promise<HealthListener> {
  const app = buildHealthServer({
    // The host's logger is pino (host-logger.ts).
    logger: logger as Logger,
    readiness: {
      store: ping,
      worker: () => {
        const w = worker();
        if (w?.polling === true) return Promise.resolve();
        return Promise.reject(new NotReady(w === undefined ? "not started" : "not polling"));
      },
    },
  });
  try {
    const address = await app.listen({ host: addr.host, port: addr.port });
    return { address, close: () => app.close() };
  } catch (e) {
    await app.close().catch(() => undefined);
    throw inUse(e, addr) ?? e;
  }
}

function inUse(e: unknown, addr: Readonly<ListenAddress>): Error | undefined {
  const code = (e as { code?: unknown }).code;
  if (code !== "EADDRINUSE" && code !== "EADDRNOTAVAIL") return undefined;
  const host = addr.host.includes(":") ? `[${addr.host}]` : addr.host;
  const why = code === "EADDRINUSE" ? "in use (another process listens there)" : "not on this host";
  return new Error(
    `WF_WORKER_HEALTH_ADDR ${host}:${addr.port}: the address is ${why}; ` +
      `set WF_WORKER_HEALTH_ADDR to a free one, or unset it for no health listener`,
    { cause: e },
  );
}
