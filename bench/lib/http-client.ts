import http from "node:http";

/**
 * A minimal keep-alive JSON client on node:http. The bench measures the
 * server, so the client must be cheap: one pooled agent, no per-request setup.
 */
export class JsonClient {
  private readonly agent: http.Agent;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly headers: Record<string, string> = {},
    maxSockets = 64,
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets });
  }

  request<T = unknown>(
    method: string,
    path: string,
    actor: string | null,
    body?: unknown,
  ): Promise<{ status: number; body: T }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { ...this.headers };
    if (actor) headers["x-actor-id"] = actor;
    if (payload !== undefined) {
      headers["content-type"] = "application/json";
      headers["content-length"] = String(Buffer.byteLength(payload));
    }
    return new Promise((resolve, reject) => {
      const req = http.request(
        { host: this.host, port: this.port, method, path, headers, agent: this.agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            try {
              resolve({ status: res.statusCode ?? 0, body: (text ? JSON.parse(text) : null) as T });
            } catch (e) {
              reject(e instanceof Error ? e : new Error(String(e)));
            }
          });
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(payload);
    });
  }

  /** Like request, but throws unless the status is the expected one. */
  async expect<T = unknown>(
    status: number,
    method: string,
    path: string,
    actor: string | null,
    body?: unknown,
  ): Promise<T> {
    const res = await this.request<T>(method, path, actor, body);
    if (res.status !== status) {
      throw new Error(
        `${method} ${path} → ${res.status} (expected ${status}): ${JSON.stringify(res.body)}`,
      );
    }
    return res.body;
  }

  close() {
    this.agent.destroy();
  }
}
