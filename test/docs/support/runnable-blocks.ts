/**
 * The code blocks of the README and docs/*.md that claim to run. A block is
 * runnable when an HTML comment (invisible on GitHub) comes right before its
 * fence, with at most blank lines between:
 *
 *   <!-- runnable -->                    the block runs as written
 *   <!-- runnable: server -->            a development server is started first (as after `npm start`)
 *   <!-- runnable: file expense.yaml --> the block is that file, for the blocks after it
 *
 * Every other block is illustrative. The runnable blocks of one file form one
 * session, in order, in a fresh directory (test/docs/runnable-blocks.test.ts):
 *
 * - `ts` whose first line is `// <file>`, or any block with `file <name>`:
 *   written to that file (in TypeScript, `from "taskflow"` imports this
 *   checkout's sources, as the built package is their build);
 * - `sh`: run by bash with `set -euo pipefail`, every curl with
 *   `--fail-with-body` (a 4xx or 5xx answer fails the block), `localhost:8081`
 *   pointing at the session's server, `taskflow` and `npm run taskflow --` the
 *   CLI from the sources (tsx src/cli/main.ts), `DATABASE_URL` a SQLite file of
 *   the session; a line that starts `taskflow serve` runs in the background,
 *   and the next line runs once the server is ready.
 */
import { readFileSync } from "node:fs";

export interface RunnableBlock {
  /** e.g. README.md:139 (the fence's line). */
  where: string;
  lang: "ts" | "sh" | "data";
  /** `server`: start a development server before this block. */
  server: boolean;
  /** `file <name>`: the file this block is. */
  file: string | undefined;
  text: string;
}

const MARKER = /^<!--\s*runnable(?::\s*(server|file [\w.-]+))?\s*-->\s*$/;
const FENCE = /^```(\S*)\s*$/;
const LANGS: Record<string, RunnableBlock["lang"]> = {
  ts: "ts",
  typescript: "ts",
  sh: "sh",
  bash: "sh",
  yaml: "data",
  json: "data",
};

export function runnableBlocks(path: string, shown: string): RunnableBlock[] {
  const lines = readFileSync(path, "utf8").split("\n");
  const blocks: RunnableBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const marker = MARKER.exec(lines[i]!);
    if (marker === null) continue;
    let at = i + 1;
    while (lines[at]?.trim() === "") at++;
    const fence = FENCE.exec(lines[at] ?? "");
    const where = `${shown}:${at + 1}`;
    if (fence === null) throw new Error(`${where}: a runnable marker must precede a fence`);
    const lang = LANGS[fence[1] ?? ""];
    if (lang === undefined) throw new Error(`${where}: a runnable block is ts, sh, yaml or json`);
    const end = lines.findIndex((l, j) => j > at && l.startsWith("```"));
    if (end === -1) throw new Error(`${where}: the block never closes`);
    const option = marker[1] ?? "";
    const file = option.startsWith("file ") ? option.slice(5) : undefined;
    if (lang === "data" && file === undefined)
      throw new Error(`${where}: yaml or json needs a file`);
    const text = lines.slice(at + 1, end).join("\n") + "\n";
    blocks.push({ where, lang, server: option === "server", file, text });
    i = end;
  }
  return blocks;
}
