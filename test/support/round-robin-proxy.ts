/**
 * A minimal HTTP load balancer for tests: each request goes to the next of
 * `targets` in turn, method, path, headers and body unchanged, and the answer
 * comes back as is. Lets a client that knows one base URL talk to several nodes.
 */
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export async function roundRobinProxy(
  targets: readonly string[],
): Promise<{ url: string; close(): Promise<void> }> {
  let next = 0;
  const server: Server = createServer((req, res) => {
    const target = new URL(targets[next++ % targets.length] as string);
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    // A node gone mid-request is what a real balancer answers with a 502.
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
