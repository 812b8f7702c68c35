/**
 * A load generator in a process of its own: N keep-alive connections, each
 * sending `POST /v1/processes` again as soon as its answer is read, for a
 * bounded time, on loopback. Apart from the test or bench so that their event
 * loop stays idle and the latencies they measure are the server's. Prints one
 * JSON line (HammerResult) when done.
 *
 * With `honourRetryAfter`, a connection answered 503 waits Retry-After before
 * its next request, as a client of a shedding server should; without, it asks
 * again at once (a client the node cannot slow down).
 *
 *   node --import tsx test/support/hammer.ts <port> <apiKey> <connections> <seconds> [honour|ignore]
 */
import { spawn } from "node:child_process";
import http from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

export interface HammerResult {
  /** Answers by status ("201", "503", …) and failed requests by error code ("error ECONNRESET"). */
  statuses: Record<string, number>;
  /** 503 answers that were not problem+json `Unavailable` with a Retry-After header. */
  bad503: number;
  /** The first such answer, for the assertion message. */
  firstBad503?: string;
}

/** Starts the hammer; resolves with its result once it has run for `seconds`. */
export function hammer(
  port: number,
  apiKey: string,
  connections: number,
  seconds: number,
  honourRetryAfter = true,
): Promise<HammerResult> {
  const file = fileURLToPath(import.meta.url);
  const args = [String(port), apiKey, String(connections), String(seconds)];
  const proc = spawn(
    process.execPath,
    ["--import", "tsx", file, ...args, honourRetryAfter ? "honour" : "ignore"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  proc.stdout.on("data", (c: Buffer) => (out += c.toString()));
  return new Promise((resolve, reject) => {
    proc.on("error", reject);
    proc.on("exit", (code) => {
      try {
        resolve(JSON.parse(out) as HammerResult);
      } catch {
        reject(new Error(`hammer exited ${code} without a result: ${out.slice(0, 200)}`));
      }
    });
  });
}

async function main([port, apiKey, connections, seconds, retry]: string[]): Promise<void> {
  const n = Number(connections);
  const honour = retry !== "ignore";
  const deadline = Date.now() + Number(seconds) * 1000;
  const agent = new http.Agent({ keepAlive: true, maxSockets: n });
  const result: HammerResult = { statuses: {}, bad503: 0 };
  const count = (k: string) => (result.statuses[k] = (result.statuses[k] ?? 0) + 1);

  /** Resolves with the seconds to wait before the next request (Retry-After of a 503). */
  const once = (i: number) =>
    new Promise<number>((resolve) => {
      const body = JSON.stringify({ processKey: "load", vars: { i } });
      const req = http.request(
        {
          host: "127.0.0.1",
          port: Number(port),
          method: "POST",
          path: "/v1/processes",
          agent,
          headers: {
            "x-api-key": apiKey,
            "x-actor-id": "loader",
            "content-type": "application/json",
            "content-length": String(Buffer.byteLength(body)),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            count(String(res.statusCode));
            if (res.statusCode !== 503) return resolve(0);
            check503(res, Buffer.concat(chunks).toString(), result);
            resolve(Number(res.headers["retry-after"]) || 1);
          });
        },
      );
      req.on("error", (e: NodeJS.ErrnoException) => {
        count(`error ${e.code ?? e.message}`);
        resolve(0);
      });
      req.end(body);
    });

  await Promise.all(
    Array.from({ length: n }, async (_, c) => {
      for (let i = c; Date.now() < deadline; i += n) {
        const wait = await once(i);
        if (honour && wait > 0) await sleep(Math.min(wait * 1000, deadline - Date.now()));
      }
    }),
  );
  agent.destroy();
  process.stdout.write(JSON.stringify(result) + "\n");
}

function check503(res: http.IncomingMessage, text: string, result: HammerResult): void {
  let code: unknown;
  try {
    code = (JSON.parse(text) as { code?: unknown }).code;
  } catch {
    code = undefined;
  }
  const ok =
    String(res.headers["content-type"]).startsWith("application/problem+json") &&
    code === "Unavailable" &&
    /^[1-9][0-9]*$/.test(String(res.headers["retry-after"]));
  if (ok) return;
  result.bad503++;
  result.firstBad503 ??= `${JSON.stringify(res.headers)} ${text.slice(0, 200)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(process.argv.slice(2));
