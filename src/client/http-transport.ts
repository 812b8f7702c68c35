/**
 * The one place that speaks HTTP: builds the URL (every path segment is
 * encodeURIComponent'ed by the caller through `path`), sets the headers, applies
 * the timeout and turns every failure into a TaskflowHttpError (a problem
 * document) or a TaskflowRequestError (anything else).
 */
import type { Problem } from "./client-types.ts";
import { DEFAULT_TIMEOUT_MS, type FetchFn, type TaskflowClientOptions } from "./client-options.ts";
import { TaskflowHttpError } from "./http-problem-error.ts";
import { TaskflowRequestError } from "./request-error.ts";

export type Query = Record<string, string | number | undefined>;

export interface HttpRequest {
  method: "GET" | "POST";
  /** Built with `path`, so ids are already encoded. */
  path: string;
  query?: Query;
  /** JSON-encoded when not undefined; no body at all when undefined. */
  body?: unknown;
  actorId?: string | undefined;
  /** Sent as Idempotency-Key (POST only): a retry with the same key gets the first answer. */
  idempotencyKey?: string | undefined;
}

export interface HttpResponse<T> {
  status: number;
  body: T;
}

/** A path from literal parts and ids: each id is encodeURIComponent'ed (`:` `@` `.` `/` …). */
export function path(strings: TemplateStringsArray, ...ids: string[]): string {
  return strings.reduce(
    (out, s, i) => out + s + (i < ids.length ? encodeURIComponent(ids[i]!) : ""),
    "",
  );
}

// Idempotency-Key too: a default one in `headers` would make every call a replay of the first.
const OWN_HEADERS = new Set([
  "x-api-key",
  "x-actor-id",
  "x-tenant-id",
  "content-type",
  "idempotency-key",
]);

export class HttpTransport {
  private readonly baseUrl: string;
  private readonly fetch: FetchFn;
  private readonly timeoutMs: number;
  private readonly headers: Record<string, string>;

  constructor(
    private readonly options: TaskflowClientOptions,
    readonly tenantId: string | undefined = options.tenantId,
  ) {
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw new TypeError("TaskflowClient: baseUrl is not an absolute URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new TypeError("TaskflowClient: baseUrl must be http: or https:");
    }
    if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") {
      throw new TypeError("TaskflowClient: baseUrl must not carry credentials, a query or a hash");
    }
    const key = options.apiKey;
    if (key !== undefined && key !== null && (typeof key !== "string" || key === "")) {
      throw new TypeError("TaskflowClient: apiKey must be a non-empty string, null or absent");
    }
    if (tenantId !== undefined && (typeof tenantId !== "string" || tenantId === "")) {
      throw new TypeError("TaskflowClient: tenantId must be a non-empty string when given");
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
      throw new TypeError("TaskflowClient: timeoutMs must be a positive number");
    }
    const fetch = options.fetch ?? globalThis.fetch;
    if (typeof fetch !== "function") throw new TypeError("TaskflowClient: no fetch available");
    this.baseUrl = url.href.replace(/\/+$/, "");
    this.fetch = fetch;
    this.timeoutMs = timeoutMs;
    this.headers = {};
    for (const [k, v] of Object.entries(options.headers ?? {})) {
      if (!OWN_HEADERS.has(k.toLowerCase())) this.headers[k] = v;
    }
  }

  /** The same connection settings for another tenant. */
  withTenant(tenantId: string): HttpTransport {
    return new HttpTransport(this.options, tenantId);
  }

  async send<T>(req: HttpRequest): Promise<HttpResponse<T>> {
    const what = `${req.method} ${req.path}`;
    const headers: Record<string, string> = { ...this.headers, accept: "application/json" };
    const key = this.options.apiKey;
    if (key !== undefined && key !== null) headers["x-api-key"] = key;
    if (this.tenantId !== undefined) headers["x-tenant-id"] = this.tenantId;
    if (req.actorId !== undefined) headers["x-actor-id"] = req.actorId;
    if (req.idempotencyKey !== undefined) headers["idempotency-key"] = req.idempotencyKey;
    const init: RequestInit = { method: req.method, headers };
    if (req.body !== undefined) {
      headers["content-type"] = "application/json";
      init.body = JSON.stringify(req.body);
    }
    const signal = AbortSignal.timeout(this.timeoutMs);
    init.signal = signal;

    let res: Response;
    let text: string;
    try {
      res = await this.fetch(this.baseUrl + req.path + queryString(req.query), init);
      text = await res.text();
    } catch (e) {
      if (signal.aborted) {
        throw new TaskflowRequestError("timeout", what, `no answer within ${this.timeoutMs} ms`, {
          cause: e,
        });
      }
      throw new TaskflowRequestError("network", what, `request failed: ${describe(e)}`, {
        cause: e,
      });
    }

    const type = res.headers.get("content-type") ?? "";
    if (res.status < 200 || res.status > 299) {
      const problem = /^application\/problem\+json\b/i.test(type) ? asProblem(text) : undefined;
      if (problem) throw new TaskflowHttpError(what, problem, retryAfter(res.headers));
      throw new TaskflowRequestError(
        "response",
        what,
        `HTTP ${res.status} without a problem document (${type || "no content type"})`,
        { status: res.status },
      );
    }
    if (text === "") return { status: res.status, body: undefined as T };
    try {
      return { status: res.status, body: JSON.parse(text) as T };
    } catch (e) {
      throw new TaskflowRequestError(
        "response",
        what,
        `HTTP ${res.status} with a body that is not JSON (${type || "no content type"})`,
        { status: res.status, cause: e },
      );
    }
  }
}

function queryString(q: Query | undefined): string {
  if (q === undefined) return "";
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined) params.set(k, String(v));
  const s = params.toString();
  return s === "" ? "" : `?${s}`;
}

function asProblem(text: string): Problem | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== "object" || body === null) return undefined;
  const p = body as Partial<Record<keyof Problem, unknown>>;
  if (typeof p.status !== "number" || typeof p.code !== "string") return undefined;
  const str = (v: unknown) => (typeof v === "string" ? v : "");
  return {
    type: str(p.type),
    title: str(p.title),
    status: p.status,
    detail: str(p.detail),
    code: p.code,
  };
}

/** `Retry-After` as seconds: a delay in seconds, or an HTTP date turned into one. */
function retryAfter(headers: Headers): number | undefined {
  const v = headers.get("retry-after")?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/** A fetch failure's reason (e.g. `ECONNREFUSED`); fetch's own message is just "fetch failed". */
function describe(e: unknown): string {
  const cause = (e as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.message === "string" && cause.message !== "") return cause.message;
  if (typeof cause?.code === "string") return cause.code;
  return e instanceof Error ? e.message : String(e);
}
