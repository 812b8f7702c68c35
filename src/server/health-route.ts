import type { FastifyInstance } from "fastify";

/** Liveness for load balancers and orchestrators: no key, no store round trip. */
export function healthRoute(app: FastifyInstance, _opts: object, done: () => void) {
  app.get(
    "/healthz",
    {
      schema: {
        tags: ["health"],
        summary: "Liveness",
        security: [],
        response: {
          200: { type: "object", required: ["status"], properties: { status: { type: "string" } } },
        },
      },
    },
    () => ({ status: "ok" }),
  );
  done();
}
