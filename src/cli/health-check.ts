/**
 * `taskflow health [--ready]`: asks a running node's liveness route
 * (`/healthz`) or readiness route (`/readyz`, which also pings the database)
 * and turns the answer into an exit code, for container health checks and
 * scripts. The node is the one this configuration would listen on (ADDR);
 * an address that listens on every interface is asked on loopback.
 */
import type { ListenAddress } from "../config/config.ts";

/** Long enough for a busy node, short enough for a container health check's default 30 s. */
const TIMEOUT_MS = 5_000;

export interface HealthAnswer {
  ok: boolean;
  /** One line for the operator. */
  line: string;
}

/** Every-interface addresses are asked on their loopback. */
const LOOPBACK: Record<string, string> = { "": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1" };

export function healthUrl(addr: Readonly<ListenAddress>, ready: boolean): string {
  const host = LOOPBACK[addr.host] ?? addr.host;
  const literal = host.includes(":") ? `[${host}]` : host;
  return `http://${literal}:${addr.port}${ready ? "/readyz" : "/healthz"}`;
}

export async function checkHealth(url: string): Promise<HealthAnswer> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (e) {
    // fetch's own message is "fetch failed"; the cause says why (ECONNREFUSED, a timeout).
    const cause = (e as { cause?: { code?: unknown; message?: unknown } }).cause;
    const why = [cause?.code, cause?.message, (e as Error).message].find(
      (x): x is string => typeof x === "string",
    );
    return { ok: false, line: `${url}: no answer (${why})` };
  }
  const body = await res.text().catch(() => "");
  if (res.ok) return { ok: true, line: `${url}: ${res.status} ok` };
  return { ok: false, line: `${url}: ${res.status} ${problemDetail(body)}`.trimEnd() };
}

function problemDetail(body: string): string {
  try {
    const p = JSON.parse(body) as { title?: unknown; detail?: unknown };
    return [p.title, p.detail].filter((x) => typeof x === "string").join(": ");
  } catch {
    return body.slice(0, 200);
  }
}
