/**
 * A TCP fault proxy for tests: nodes connect to the proxy instead of the
 * database (or Redis), and the test breaks the network between them on demand.
 *
 * - `latency(ms)`: every chunk in either direction arrives `ms` later (order kept).
 * - `cut()`: destroys every open connection at once, as a failover or a
 *   `pg_terminate_backend` of all sessions would; new connections still work.
 * - `blackhole(true)`: nothing moves in either direction and new connections
 *   hang in the connect phase, as when a host stops answering. Bytes are held,
 *   not dropped: TCP never loses bytes in the middle of a stream, it delivers
 *   them late or the connection dies, so `blackhole(false)` delivers what waited.
 * - `refuse(true)`: new connections are closed at once, as a stopped server.
 *
 * No external binary: a few dozen lines over node:net, loopback only.
 */
import { createServer, connect, type Server, type Socket } from "node:net";

export interface FaultProxy {
  /** The proxy's port on 127.0.0.1; point the node's URL at it. */
  readonly port: number;
  /** Rewrites a database URL's host and port to the proxy's. */
  urlFor(url: string): string;
  latency(ms: number): void;
  cut(): void;
  blackhole(on: boolean): void;
  refuse(on: boolean): void;
  /** Connections open through the proxy now. */
  readonly open: number;
  close(): Promise<void>;
}

interface Pipe {
  client: Socket;
  upstream: Socket | null;
}

export async function startFaultProxy(targetHost: string, targetPort: number): Promise<FaultProxy> {
  const pipes = new Set<Pipe>();
  let delayMs = 0;
  let holding = false;
  let refusing = false;
  /** Work parked while black-holed: writes and upstream connects, in order. */
  let parked: (() => void)[] = [];

  const later = (fn: () => void) => {
    if (holding) parked.push(fn);
    else if (delayMs > 0) setTimeout(() => (holding ? parked.push(fn) : fn()), delayMs);
    else fn();
  };

  const forward = (from: Socket, to: () => Socket | null) => {
    from.on("data", (chunk: Buffer) =>
      later(() => {
        const dest = to();
        if (dest && !dest.destroyed) dest.write(chunk);
      }),
    );
  };

  const drop = (p: Pipe) => {
    pipes.delete(p);
    p.client.destroy();
    p.upstream?.destroy();
  };

  const server: Server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const p: Pipe = { client, upstream: null };
    pipes.add(p);
    client.on("error", () => drop(p));
    client.on("close", () => drop(p));
    // The connect goes through `later` first, so every chunk the client sends
    // (also through `later`, in order) finds the upstream socket created; a
    // socket still connecting buffers what is written to it.
    later(() => {
      if (!pipes.has(p)) return;
      const up = connect(targetPort, targetHost);
      p.upstream = up;
      up.on("error", () => drop(p));
      up.on("close", () => drop(p));
      forward(up, () => p.client);
    });
    forward(client, () => p.upstream);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;

  return {
    port,
    urlFor(url) {
      const u = new URL(url);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    latency(ms) {
      delayMs = ms;
    },
    cut() {
      for (const p of [...pipes]) drop(p);
    },
    blackhole(on) {
      holding = on;
      if (!on) {
        const run = parked;
        parked = [];
        for (const fn of run) fn();
      }
    },
    refuse(on) {
      refusing = on;
      if (on) for (const p of [...pipes]) drop(p);
    },
    get open() {
      return pipes.size;
    },
    async close() {
      holding = false;
      parked = [];
      for (const p of [...pipes]) drop(p);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
