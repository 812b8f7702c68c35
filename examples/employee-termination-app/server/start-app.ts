/**
 * Everything the one command starts: TaskFlow on its private port, then the
 * backend in front of it. Used by main.ts and by the browser test's fixture,
 * so the test runs what a developer runs.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { TaskflowClient } from "taskflow/client";
import { buildBackend } from "./backend.ts";
import { startPrivateTaskflow } from "./private-taskflow.ts";

export interface AppOptions {
  /** Where the SQLite file lives (created if missing). */
  dataDir: string;
  /** The pages' build directory. */
  pagesDir: string;
  /** The backend's port; 0 picks a free one. */
  port: number;
  /** The backend's interface; 127.0.0.1 unless told otherwise. */
  host: string;
  /** TaskFlow's port on 127.0.0.1; 0 picks a free one. */
  taskflowPort: number;
  /** The key the backend calls TaskFlow with; none: a random one for this run. */
  taskflowApiKey?: string | undefined;
  /** Secure on the session cookie: when a proxy in front serves the app over HTTPS. */
  secureCookies?: boolean | undefined;
}

export interface RunningApp {
  /** The backend's URL, for the browser. */
  readonly url: string;
  /** TaskFlow's private URL (printed for the curious; the browser cannot use it without the key). */
  readonly taskflowUrl: string;
  close(): Promise<void>;
}

export async function startApp(o: AppOptions): Promise<RunningApp> {
  mkdirSync(o.dataDir, { recursive: true });
  const engine = await startPrivateTaskflow({
    databaseFile: join(o.dataDir, "taskflow.db"),
    port: o.taskflowPort,
    apiKey: o.taskflowApiKey,
  });
  try {
    const taskflow = new TaskflowClient({ baseUrl: engine.url, apiKey: engine.apiKey });
    const backend = await buildBackend({
      taskflow,
      pagesDir: o.pagesDir,
      secureCookies: o.secureCookies ?? false,
    });
    const url = await backend.listen({ host: o.host, port: o.port });
    return {
      url,
      taskflowUrl: engine.url,
      close: async () => {
        await backend.close();
        await engine.close();
      },
    };
  } catch (e) {
    // A backend that cannot start (port taken, no pages) must not leave TaskFlow running.
    await engine.close();
    throw e;
  }
}
