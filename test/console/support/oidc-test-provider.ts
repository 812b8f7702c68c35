/**
 * A real OpenID Connect provider (oidc-provider) on a free loopback port, for
 * the Console's login tests. Its login screen is replaced by one that logs in
 * whoever the test names (`nextUser`) and grants the scopes asked for, so a
 * test drives the whole redirect dance with fetch and a cookie jar, as a
 * browser would.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Who logs in at the provider next. */
  nextUser: string;
  /**
   * Follows the provider's redirects from an authorization URL until they leave it;
   * returns the address it sent the browser to (the Console's callback).
   */
  authorize(url: string): Promise<URL>;
  close(): Promise<void>;
}

export async function startTestProvider(redirectUri: string): Promise<TestProvider> {
  const clientId = "taskflow-console";
  const clientSecret = randomBytes(24).toString("base64url");
  let server: Server | undefined;
  const listening = await new Promise<Server>((resolve, reject) => {
    const s = createServer((req, res) => handler(req, res));
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => resolve(s));
  });
  server = listening;
  const { port } = listening.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  const state: { nextUser: string } = { nextUser: "bob" };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    findAccount: (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: () => ({
        sub: `subject-of-${id}`,
        preferred_username: id,
        email: `${id}@example.com`,
        // A name starting "unverified" stands for an address the provider never checked.
        email_verified: !id.startsWith("unverified"),
      }),
    }),
    claims: {
      openid: ["sub"],
      profile: ["preferred_username"],
      email: ["email", "email_verified"],
    },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    cookies: { keys: [randomBytes(16).toString("hex")] },
    // Its own signing key (the built-in one is for quick starts, and says so on stdout).
    jwks: { keys: [{ ...signingKey(), alg: "RS256", use: "sig" }] },
    interactions: { url: (_ctx: unknown, i: { uid: string }) => `/interaction/${i.uid}` },
  });
  // The provider logs a warning per request about http on loopback: not this test's concern.
  provider.on("server_error", () => undefined);
  const callback = provider.callback();
  const handler = (req: Parameters<typeof callback>[0], res: Parameters<typeof callback>[1]) => {
    if (!req.url?.startsWith("/interaction/")) return callback(req, res);
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      const accountId = state.nextUser;
      const grant = new provider.Grant({ accountId, clientId });
      const scope = details.params.scope;
      grant.addOIDCScope(typeof scope === "string" ? scope : "openid");
      const grantId = await grant.save();
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId }, consent: { grantId } },
        { mergeWithLastSubmission: false },
      );
    })().catch((e: unknown) => {
      res.statusCode = 500;
      res.end(String(e));
    });
  };

  return {
    issuer,
    clientId,
    clientSecret,
    get nextUser() {
      return state.nextUser;
    },
    set nextUser(id: string) {
      state.nextUser = id;
    },
    async authorize(url) {
      const jar = new Map<string, string>();
      let at = new URL(url);
      for (let hop = 0; hop < 10; hop++) {
        if (at.origin !== issuer) return at;
        const r = await fetch(at, {
          redirect: "manual",
          headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") },
        });
        for (const line of r.headers.getSetCookie()) {
          const pair = line.split(";")[0] ?? "";
          const eq = pair.indexOf("=");
          jar.set(pair.slice(0, eq), pair.slice(eq + 1));
        }
        const location = r.headers.get("location");
        if (location === null) {
          throw new Error(
            `the provider answered ${r.status} without a redirect: ${await r.text()}`,
          );
        }
        await r.body?.cancel();
        at = new URL(location, at);
      }
      throw new Error("the provider redirected more than 10 times");
    },
    close: () =>
      new Promise<void>((resolve) => {
        server?.closeAllConnections();
        server?.close(() => resolve());
        server = undefined;
      }),
  };
}

function signingKey() {
  return generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });
}
