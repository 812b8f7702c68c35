/**
 * TaskFlow embedded in this process on a SQLite file, listening on 127.0.0.1
 * only (a private port: nothing outside this machine reaches it), with an API
 * key that never leaves the server. The termination definition is published
 * into every company's tenant at start, since definitions are per tenant.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createTaskflow, loadConfig } from "taskflow";
import { COMPANIES, directory } from "./people.ts";

export const DEFINITION_KEY = "employee-termination";
const DEFINITION_FILE = new URL(
  "../../definitions/employee-termination/definition.yaml",
  import.meta.url,
);

export interface PrivateTaskflow {
  /** e.g. http://127.0.0.1:40123 */
  readonly url: string;
  readonly apiKey: string;
  close(): Promise<void>;
}

export async function startPrivateTaskflow(opts: {
  databaseFile: string;
  /** 0: a free port. */
  port: number;
  /** At least 24 characters; none: a random one. */
  apiKey?: string | undefined;
}): Promise<PrivateTaskflow> {
  const apiKey = opts.apiKey ?? randomBytes(32).toString("base64url");
  const config = loadConfig({
    env: {}, // this app brings its own settings; the shell's DATABASE_URL, WF_* do not apply
    overrides: {
      // production: the key is required on every call, as it would be in a deployment
      nodeEnv: "production",
      addr: { host: "127.0.0.1", port: opts.port },
      databaseUrl: `sqlite:${opts.databaseFile}`,
      apiKeys: [apiKey],
      ...directory(),
      logLevel: "warn",
    },
  });
  const tf = await createTaskflow(config);
  try {
    const url = await tf.listen();
    for (const tenant of COMPANIES) await publish(url, apiKey, tenant);
    return { url, apiKey, close: () => tf.close() };
  } catch (e) {
    await tf.close();
    throw e;
  }
}

/**
 * POST /v1/definitions/{key}/publish with the YAML at each start: 201 when the file changed
 * (a new version), 200 `unchanged` when it is the published version already.
 */
async function publish(url: string, apiKey: string, tenant: string): Promise<void> {
  const r = await fetch(`${url}/v1/definitions/${DEFINITION_KEY}/publish`, {
    method: "POST",
    headers: {
      "x-api-key": apiKey,
      "x-tenant-id": tenant,
      "x-actor-id": "termination-app",
      "content-type": "application/yaml",
    },
    body: readFileSync(DEFINITION_FILE, "utf8"),
  });
  if (r.status !== 201 && r.status !== 200) {
    throw new Error(`publish in ${tenant}: ${r.status} ${await r.text()}`);
  }
}
