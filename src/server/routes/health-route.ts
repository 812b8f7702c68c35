import type { FastifyInstance } from "fastify";
import { errorResponses, jsonResponse } from "../openapi/openapi-responses.ts";

/** Liveness for load balancers and orchestrators: no key, no store round trip. */
export function healthRoute(app: FastifyInstance, _opts: object, done: () => void) {
  app.get(
    "/healthz",
    {
      schema: {
        tags: ["health"],
        summary: "Liveness",
        description:
          "200 while the process serves requests; touches no backend (see /readyz). No API key.",
        security: [],
        response: {
          200: jsonResponse(
            "Alive",
            { type: "object", required: ["status"], properties: { status: { type: "string" } } },
            { status: "ok" },
          ),
          // A node shutting down answers every request so (closing-guard.ts).
          ...errorResponses(["Unavailable"]),
        },
      },
    },
    () => ({ status: "ok" }),
  );
  done();
}
