/**
 * GET /auth/methods: the ways in this Console offers, for its login page,
 * which shows those and no other (a form for a method that is not configured
 * would only answer 404). Public, like the login routes themselves: it says
 * how to log in, not who may.
 */
import type { FastifyInstance } from "fastify";
import type { LoginMethods } from "./console-start.ts";

export interface LoginMethodsView {
  /** POST /auth/code then /auth/verify. */
  code: boolean;
  /** GET /auth/oidc/start (a navigation, not a fetch). */
  oidc: boolean;
  /** The authenticating proxy in front logs people in; the page has nothing to ask. */
  trustedHeader: boolean;
}

export function loginMethodsRoute(
  app: FastifyInstance,
  { methods }: { methods: LoginMethods },
  done: (err?: Error) => void,
): void {
  const view: LoginMethodsView = {
    code: methods.code !== "off",
    oidc: methods.oidc,
    trustedHeader: methods.trustedHeader,
  };
  app.get("/auth/methods", () => view);
  done();
}
