/**
 * The code blocks of the README and docs/*.md that claim to run. A block is
 * runnable when an HTML comment (invisible on GitHub) comes right before its
 * fence, with at most blank lines between:
 *
 *   <!-- runnable -->          the block runs as written
 *   <!-- runnable: server -->  a development server is started first (as after `npm start`)
 *
 * Every other block is illustrative. The runnable blocks of one file form one
 * session, in order, in a fresh directory (test/docs/runnable-blocks.test.ts):
 *
 * - `ts` whose first line is `// <file>`: written to that file (`from "taskflow"`
 *   imports this checkout's sources, as the built package is their build);
 * - `sh`: run by bash with `set -euo pipefail`, every curl with
 *   `--fail-with-body` (a 4xx or 5xx answer fails the block), `localhost:8081`
 *   pointing at the session's server, `npm run taskflow --` as its script
 *   (tsx src/cli/main.ts); a line that starts `taskflow serve` runs in the
 *   background, and the next line runs once the server is ready.
 */
import { readFileSync } from "node:fs";

export interface RunnableBlock {
  /** e.g. README.md:139 (the fence's line). */
  where: string;
  lang: "ts" | "sh";
  options: string[];
  text: string;
}

const MARKER = /^<!--\s*runnable(?::\s*([a-z ,-]*))?\s*-->\s*$/;
const FENCE = /^```(\S*)\s*$/;
const LANGS: Record<string, RunnableBlock["lang"]> = {
  ts: "ts",
  typescript: "ts",
  sh: "sh",
  bash: "sh",
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
    if (lang === undefined) throw new Error(`${where}: a runnable block is ts or sh`);
    const end = lines.findIndex((l, j) => j > at && l.startsWith("```"));
    if (end === -1) throw new Error(`${where}: the block never closes`);
    const options = (marker[1] ?? "").split(/[ ,]+/).filter((o) => o !== "");
    for (const o of options) if (o !== "server") throw new Error(`${where}: unknown option ${o}`);
    blocks.push({ where, lang, options, text: lines.slice(at + 1, end).join("\n") + "\n" });
    i = end;
  }
  return blocks;
}
