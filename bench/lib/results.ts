import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";

/** Writes one bench's figures with the machine they were measured on. */
export function writeResults(name: string, data: unknown): string {
  const dir = fileURLToPath(new URL("../results/", import.meta.url));
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const file = `${dir}${name}-${stamp}.json`;
  const machine = {
    node: process.version,
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model,
    memGiB: Math.round(os.totalmem() / 2 ** 30),
  };
  writeFileSync(
    file,
    JSON.stringify({ bench: name, at: new Date().toISOString(), machine, data }, null, 2),
  );
  return file;
}

export function printTable(rows: Record<string, string | number>[]) {
  if (rows.length === 0) return;
  const cols = Object.keys(rows[0]!);
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c] ?? "").length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padStart(width[i]!)).join("  ");
  console.log(line(cols));
  for (const r of rows) console.log(line(cols.map((c) => String(r[c] ?? ""))));
}
