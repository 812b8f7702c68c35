/** `npm run bench -- <name>`: runs one benchmark, prints a table, writes JSON to bench/results/. */
const benches: Record<string, () => Promise<{ run(args: string[]): Promise<void> }>> = {
  tasks: () => import("./tasks.ts"),
  durable: () => import("./durable.ts"),
  size: () => import("./size.ts"),
  load: () => import("./load.ts"),
  chaos: () => import("./chaos.ts"),
  coordination: () => import("./coordination.ts"),
  definitions: () => import("./definitions.ts"),
  expressions: () => import("./expressions.ts"),
  cache: () => import("./cache.ts"),
  console: () => import("./console.ts"),
};

const [name, ...args] = process.argv.slice(2);
const load = name ? benches[name] : undefined;
if (!load) {
  console.error(`usage: npm run bench -- <${Object.keys(benches).join("|")}>`);
  process.exit(2);
}
await (await load()).run(args);
