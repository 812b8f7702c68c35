/**
 * A redis-server of the test's own, on a free port: stopping it touches nobody
 * else's Redis, and its client count is this test's alone.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";

export async function startOwnRedis(port: number): Promise<ChildProcess> {
  return answering(
    port,
    spawn(
      "redis-server",
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--daemonize",
        "no",
      ],
      { stdio: "ignore" },
    ),
  );
}

/**
 * A Sentinel of the test's own on `port`, watching the master at `masterPort`
 * under `name` (quorum 1). Its config file lives in a temporary directory:
 * a Sentinel rewrites it as it learns.
 */
export async function startOwnSentinel(
  port: number,
  name: string,
  masterPort: number,
): Promise<{ child: ChildProcess; stop(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "tf-sentinel-"));
  const conf = join(dir, "sentinel.conf");
  await writeFile(
    conf,
    `port ${port}\nbind 127.0.0.1\nsentinel monitor ${name} 127.0.0.1 ${masterPort} 1\n`,
  );
  const child = await answering(
    port,
    spawn("redis-server", [conf, "--sentinel"], { stdio: "ignore" }),
  );
  return {
    child,
    async stop() {
      await stopOwnRedis(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves with `child` once something answers PING on `port` (within 5 s). */
async function answering(port: number, child: ChildProcess): Promise<ChildProcess> {
  const probe = new Redis(port, "127.0.0.1", { lazyConnect: true, maxRetriesPerRequest: 0 });
  probe.on("error", () => undefined); // refused while the server starts: retried below
  try {
    for (let i = 0; i < 100; i++) {
      try {
        await probe.connect();
        await probe.ping();
        return child;
      } catch {
        probe.disconnect();
        await sleep(50);
      }
    }
  } finally {
    probe.disconnect();
  }
  child.kill("SIGKILL");
  throw new Error(`redis-server on port ${port} did not answer within 5 s`);
}

export async function stopOwnRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  await exited;
}
