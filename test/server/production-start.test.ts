/**
 * Every process start a user makes, made as the user makes it, in production
 * (NODE_ENV=production): `npm start`, and the built bin's `taskflow serve`,
 * `taskflow console` and `taskflow worker`. With WF_API_KEYS each server
 * reaches /healthz and /readyz and serves the API with the key; without it,
 * each refuses to start in one line naming WF_API_KEYS. A worker serves no
 * HTTP and needs no key (production-worker-start.test.ts). These spawn the
 * build (dist/), so run `npm run build` after changing src/.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import {
  bin,
  KEY,
  production,
  reachable,
  removeProcessFiles,
  serves,
  start,
} from "./support/production-process.ts";
import { freePort } from "../support/server-process.ts";

after(removeProcessFiles);

test("without WF_API_KEYS every server start refuses in one line naming WF_API_KEYS", async () => {
  const starts = await Promise.all(
    [
      ["npm", ["start", "--silent"]],
      [process.execPath, ["bin/taskflow.js", "serve"]],
      [process.execPath, ["bin/taskflow.js", "console"]],
    ].map(async ([command, args], i) => {
      const p = start(command as string, args as string[], production(`nokey-${i}`, 9));
      return { what: (args as string[]).join(" "), code: await p.exited, stderr: p.stderr() };
    }),
  );
  for (const s of starts) {
    assert.equal(s.code, 1, `${s.what}: ${s.stderr}`);
    assert.match(s.stderr, /WF_API_KEYS/, s.what);
    const lines = s.stderr.trim().split("\n");
    assert.equal(lines.length, 1, `${s.what}: one line, no stack: ${s.stderr}`);
  }
});

test("npm start in production with a key: the API is served; the Console, with no login configured, is off in one warning", async () => {
  const port = await freePort();
  const p = start("npm", ["start", "--silent"], production("npm", port, { WF_API_KEYS: KEY }));
  try {
    const base = `http://127.0.0.1:${port}`;
    await reachable(p, base);
    await serves(base);
    const off = p
      .stdout()
      .split("\n")
      .filter((l) => l.includes("console: off"));
    assert.equal(off.length, 1, p.stdout());
    assert.match(off[0] ?? "", /WF_CONSOLE_OIDC_ISSUER/);
    assert.match(p.stdout(), /taskflow: Console off: no login configured/);
    assert.equal((await fetch(`${base}/console/api/session`)).status, 404);
  } finally {
    // npm's own exit code on SIGTERM varies by version; the server's stop is cli.test.ts's.
    await p.stop();
  }
});

test("taskflow serve and taskflow console in production with a key; the Console's login by OpenID Connect", async () => {
  const [servePort, consolePort] = [await freePort(), await freePort()];
  const serve = bin(["serve"], production("serve", servePort, { WF_API_KEYS: KEY }));
  const console = bin(
    ["console"],
    production("console", consolePort, {
      WF_API_KEYS: KEY,
      // Discovered at the first login, so the provider need not be up for the start.
      WF_CONSOLE_OIDC_ISSUER: "https://id.example.com",
      WF_CONSOLE_OIDC_CLIENT_ID: "taskflow-console",
      WF_CONSOLE_OIDC_CLIENT_SECRET: "oidc-client-secret-value",
      WF_CONSOLE_OIDC_REDIRECT_URL: "https://console.example.com/console/api/auth/oidc/callback",
    }),
  );
  try {
    const serveBase = `http://127.0.0.1:${servePort}`;
    const consoleBase = `http://127.0.0.1:${consolePort}`;
    await Promise.all([reachable(serve, serveBase), reachable(console, consoleBase)]);
    await serves(serveBase);
    await serves(consoleBase);
    assert.equal((await fetch(`${serveBase}/console/api/auth/methods`)).status, 404);
    const methods = await fetch(`${consoleBase}/console/api/auth/methods`);
    assert.deepEqual(await methods.json(), { code: false, oidc: true, trustedHeader: false });
    assert.match(console.stdout(), /Console API on/);
    for (const p of [serve, console]) {
      assert.ok(!(p.stdout() + p.stderr()).includes(KEY), "the key is not in the output");
    }
    assert.ok(!console.stdout().includes("oidc-client-secret-value"));
  } finally {
    assert.equal(await serve.stop(), 0, serve.stderr());
    assert.equal(await console.stop(), 0, console.stderr());
  }
});
