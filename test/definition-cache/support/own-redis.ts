/**
 * A redis-server of the test's own, on a free port: stopping it touches nobody
 * else's Redis, and its client count is this test's alone.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";

export async function startOwnRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
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
  );
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
