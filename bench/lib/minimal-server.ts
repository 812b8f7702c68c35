/**
 * The REST cycle's ceiling (`npm run bench -- tasks`): a minimal Fastify + `pg`
 * server, run as its own process like `taskflow serve`, whose every request is
 * one single-row autocommit INSERT. It answers the same five requests of the
 * cycle (bench/tasks.ts) with just enough of TaskFlow's response shape for the
 * load generator: an instance id, three task ids, and `joined` set on the third
 * completion. No logging, no auth, no validation, no response schema: what any
 * HTTP-to-PostgreSQL service pays at least.
 *
 * Started as `node --import tsx bench/lib/minimal-server.ts` with DATABASE_URL
 * and ADDR=127.0.0.1:<port>; the pool has TaskFlow's default size (10).
 */
import Fastify from "fastify";
import pg from "pg";

const TABLE = "bench_minimal_rows";
const POOL_SIZE = 10;

const url = process.env.DATABASE_URL;
const [host, port] = (process.env.ADDR ?? "127.0.0.1:0").split(":");
if (!url) throw new Error("DATABASE_URL is required");

const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE });
await pool.query(
  `CREATE TABLE IF NOT EXISTS ${TABLE} (id bigserial PRIMARY KEY, kind text NOT NULL, body text NOT NULL)`,
);

async function insert(kind: string, body: unknown): Promise<string> {
  const r = await pool.query<{ id: string }>(
    `INSERT INTO ${TABLE} (kind, body) VALUES ($1, $2) RETURNING id`,
    [kind, JSON.stringify(body ?? null)],
  );
  return r.rows[0]!.id;
}

const app = Fastify({ logger: false });

app.get("/healthz", (_req, reply) => reply.send({ status: "ok" }));

app.post("/v1/processes", async (req, reply) => {
  const id = await insert("start", req.body);
  return reply.code(201).send({ definitionKey: "bench", instanceId: id });
});

app.post<{ Body: { assignee?: { ids?: string[] } } }>("/v1/assignments", async (req, reply) => {
  const id = await insert("assign", req.body);
  const ids = req.body.assignee?.ids ?? [];
  const tasks = ids.map((user, k) => ({
    id: `${id}.${k + 1}`,
    assignee: { kind: "user", id: user },
  }));
  return reply.code(201).send({ instanceId: id, task: tasks[0], tasks });
});

app.post<{ Params: { id: string } }>("/v1/tasks/:id/complete", async (req) => {
  const { id } = req.params;
  await insert("complete", { id, body: req.body });
  const instanceId = id.slice(0, id.lastIndexOf("."));
  return {
    task: { id, status: "completed" },
    completion: { instanceId },
    next: null,
    joined: id.endsWith(".3") ? { instanceId } : null,
  };
});

await app.listen({ host, port: Number(port) });

const stop = () => {
  void app
    .close()
    .then(() => pool.end())
    .then(() => process.exit(0));
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
