/**
 * `npm run bench -- expressions`: the cost per evaluation of the expression
 * budget. Plain jsonata in-process (what the interpreter did before the budget:
 * compiled once, evaluated, turned into its JSON form) against the budgeted
 * evaluation in the sandbox's child processes (expression-sandbox.ts), on the
 * same expressions and documents, in interleaved rounds (the order alternates
 * each round); medians of the rounds' per-evaluation means. Then the budgeted
 * throughput with 16 evaluations in flight (two children).
 *
 *   npm run bench -- expressions            # 15 rounds of 300 evaluations per case
 *   npm run bench -- expressions 5 100      # rounds, evaluations per round
 */
import jsonata from "jsonata";
import { ExpressionSandbox } from "../src/engine/definitions/expression-sandbox.ts";
import { median, round } from "./lib/stats.ts";
import { printTable, writeResults } from "./lib/results.ts";

interface Case {
  name: string;
  text: string;
  vars: Record<string, unknown>;
}

const items = Array.from({ length: 100 }, (_, i) => ({
  sku: `sku-${i}`,
  price: i * 1.5,
  qty: 1 + (i % 3),
}));
const CASES: Case[] = [
  {
    name: "choice on a number",
    text: "vars.amount > 1000",
    vars: { amount: 1200, currency: "EUR" },
  },
  {
    name: "template hole",
    text: '$string(vars.amount) & " " & vars.currency',
    vars: { amount: 1200, currency: "EUR" },
  },
  {
    name: "sum over 100 items (~5 KB vars)",
    text: '{ "total": $sum(vars.items.(price * qty)), "n": $count(vars.items) }',
    vars: { items },
  },
];

async function plainRound(e: jsonata.Expression, doc: unknown, n: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const v: unknown = await e.evaluate(doc, {});
    if (v !== undefined) JSON.parse(JSON.stringify(v));
  }
  return ((performance.now() - t0) * 1000) / n;
}

async function budgetedRound(
  s: ExpressionSandbox,
  text: string,
  doc: unknown,
  n: number,
): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await s.evaluate({ text, doc, bindings: {} });
  return ((performance.now() - t0) * 1000) / n;
}

async function inFlight(
  s: ExpressionSandbox,
  text: string,
  doc: unknown,
  total: number,
  width: number,
) {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next++ < total) await s.evaluate({ text, doc, bindings: {} });
    }),
  );
  return total / ((performance.now() - t0) / 1000);
}

export async function run(args: string[]): Promise<void> {
  const rounds = Number(args[0] ?? 15);
  const perRound = Number(args[1] ?? 300);
  const sandbox = new ExpressionSandbox();
  const rows: Record<string, string | number>[] = [];
  const data: unknown[] = [];
  try {
    for (const c of CASES) {
      const doc = { vars: c.vars, last: null };
      const compiled = jsonata(c.text);
      // Warm both: JIT, the children's start and their compiled-expression cache.
      await plainRound(compiled, doc, 200);
      await budgetedRound(sandbox, c.text, doc, 200);
      const plain: number[] = [];
      const budgeted: number[] = [];
      for (let r = 0; r < rounds; r++) {
        if (r % 2 === 0) {
          plain.push(await plainRound(compiled, doc, perRound));
          budgeted.push(await budgetedRound(sandbox, c.text, doc, perRound));
        } else {
          budgeted.push(await budgetedRound(sandbox, c.text, doc, perRound));
          plain.push(await plainRound(compiled, doc, perRound));
        }
      }
      const p = median(plain);
      const b = median(budgeted);
      const perSecond = await inFlight(sandbox, c.text, doc, perRound * 5, 16);
      rows.push({
        case: c.name,
        "plain µs": round(p, 1),
        "budgeted µs": round(b, 1),
        "cost µs": round(b - p, 1),
        "budgeted/s, 16 in flight": Math.round(perSecond),
      });
      data.push({
        ...c,
        vars: undefined,
        rounds,
        perRound,
        plainUs: plain,
        budgetedUs: budgeted,
        medianPlainUs: p,
        medianBudgetedUs: b,
        inFlight16PerSecond: perSecond,
      });
    }
  } finally {
    sandbox.close();
  }
  printTable(rows);
  console.log(`results: ${writeResults("expressions", data)}`);
}
