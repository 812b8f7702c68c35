/**
 * The definition examples' embedded app on a fresh database of one backend
 * (SQLite: a temporary file), closed and dropped after the test body.
 */
import { createTestDatabase, type Backend } from "../../support/backends.ts";
import { openExampleApp, type ExampleApp } from "../../../examples/definitions/app.ts";

/** The backends the example tests run on: SQLite (the examples' own) and PostgreSQL. */
export const exampleBackends: Backend[] = [{ name: "sqlite" }, { name: "postgres" }];

export async function withExampleApp(
  b: Backend,
  body: (app: ExampleApp) => Promise<void>,
): Promise<void> {
  const db = await createTestDatabase(b);
  const app = await openExampleApp({ databaseUrl: db.url });
  try {
    await body(app);
  } finally {
    await app.close();
    await db.drop();
  }
}

export const quiet = (): void => undefined;
