/**
 * One HTTP call of the chaos load: fetch with a deadline, never throwing. A
 * call that timed out or lost its connection is `status: 0` — its outcome is
 * unknown, so the load never counts it as acknowledged.
 */
export const CHAOS_API_KEY = "chaos-key-0123456789abcdefghijkl";

/**
 * 2.5 s: a black-holed database holds requests for 10 s; the load gives up on
 * them well before that and tries again, as a caller with a timeout would.
 */
const REQUEST_TIMEOUT_MS = 2_500;

export interface Reply {
  status: number;
  body: unknown;
}

export async function call(
  base: string,
  method: "GET" | "POST",
  path: string,
  actor: string,
  body?: unknown,
): Promise<Reply> {
  const headers: Record<string, string> = { "x-api-key": CHAOS_API_KEY, "x-actor-id": actor };
  if (body !== undefined) headers["content-type"] = "application/json";
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* a non-JSON answer stays text, for the report */
    }
    return { status: res.status, body: parsed };
  } catch {
    return { status: 0, body: null };
  }
}

export const isOk = (r: Reply) => r.status >= 200 && r.status < 300;
