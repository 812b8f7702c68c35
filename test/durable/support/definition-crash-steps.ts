/**
 * The code steps of the definition crash test, as the source of a JavaScript
 * module the test writes to its temporary directory and hands to the compiled
 * binary (`node bin/taskflow.js serve|worker --workflows <file>`).
 *
 * JavaScript importing the built package (dist/index.js) by its absolute URL,
 * not a .ts module: a .ts module makes the binary load a TypeScript loader,
 * which costs seconds at each of the test's twenty restarts on a busy machine.
 *
 * Each execution appends "start|end <idempotencyKey> <ms> <pid>" to
 * $TF_STEP_LOG (a side file no kill can roll back), so the test counts how
 * often each step ran across processes and kill -9s, and compares that with
 * the completions the runs recorded.
 */
import { fileURLToPath, pathToFileURL } from "node:url";

const distIndex = pathToFileURL(fileURLToPath(new URL("../../../dist/index.js", import.meta.url)));

export const crashStepsSource = `
import { appendFileSync } from "node:fs";
import { registerStep } from ${JSON.stringify(distIndex.href)};

const log = (what, key) => {
  const file = process.env.TF_STEP_LOG;
  if (file) appendFileSync(file, \`\${what} \${key} \${Date.now()} \${process.pid}\\n\`);
};

// Long enough that a kill catches some in flight, short enough for 200 runs.
const work = () => new Promise((r) => setTimeout(r, 100 + Math.floor(Math.random() * 200)));

registerStep("crash-prepare", async (input, { idempotencyKey }) => {
  log("start", idempotencyKey);
  await work();
  log("end", idempotencyKey);
  return input.n * 2;
});

registerStep("crash-settle", async (input, { idempotencyKey }) => {
  log("start", idempotencyKey);
  await work();
  log("end", idempotencyKey);
  return input.prepared + 1;
});
`;
