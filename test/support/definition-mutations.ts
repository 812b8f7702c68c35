/**
 * Invalid definitions for property tests: a valid fixture with one to three
 * mutations, each of which on its own makes the definition invalid (and no
 * later mutation can repair an earlier one): drop a referenced state, break a
 * `next`, corrupt an expression or a template, give a field the wrong type,
 * remove a required field, name an unknown state type, add an unknown
 * property, add an unreachable state, put a spinning loop in front, break a form.
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return --
   mutations work on plain JSON documents */
import fc from "fast-check";
import { expenseApproval, minimal } from "./definition-fixtures.ts";

type Doc = Record<string, any>;

const KINDS = [
  "dropReferencedState",
  "breakNext",
  "corruptExpression",
  "corruptTemplate",
  "wrongType",
  "dropRequired",
  "unknownType",
  "unknownProperty",
  "orphanState",
  "spinLoop",
  "badForm",
] as const;

export type MutationKind = (typeof KINDS)[number];

export interface Mutation {
  kind: MutationKind;
  pick: number;
}

const isRecord = (v: unknown): v is Doc => typeof v === "object" && v !== null && !Array.isArray(v);

/** The top-level states map, if the document still has one. */
const statesOf = (d: Doc): Doc | undefined => (isRecord(d["states"]) ? d["states"] : undefined);

function pickOf<T>(xs: T[], n: number): T | undefined {
  return xs.length === 0 ? undefined : xs[n % xs.length];
}

/** Fields naming a next state, as [holder, field] pairs, over every top-level state. */
function nextFields(states: Doc): [Doc, string][] {
  const out: [Doc, string][] = [];
  for (const s of Object.values(states)) {
    if (!isRecord(s)) continue;
    for (const f of ["next", "otherwise", "onTimeout", "onError"]) {
      if (typeof s[f] === "string") out.push([s, f]);
    }
    if (isRecord(s["actions"])) {
      for (const a of Object.values(s["actions"])) if (isRecord(a)) out.push([a, "next"]);
    }
    if (Array.isArray(s["choices"]))
      for (const c of s["choices"]) if (isRecord(c)) out.push([c, "next"]);
  }
  return out;
}

export function applyMutation(d: Doc, m: Mutation): void {
  const states = statesOf(d);
  switch (m.kind) {
    case "dropReferencedState": {
      if (!states) return void (d["states"] = 17);
      const targets = [d["start"], ...nextFields(states).map(([h, f]) => h[f])].filter(
        (t): t is string => typeof t === "string" && t in states,
      );
      const victim = pickOf(targets, m.pick);
      // Every referenced name is kept referenced, so removing its state leaves a dangling name.
      if (victim === undefined) d["start"] = "no-such-state";
      else delete states[victim];
      return;
    }
    case "breakNext": {
      const fields = states ? nextFields(states) : [];
      const f = pickOf(fields, m.pick);
      if (f) f[0][f[1]] = `missing-${m.pick % 7}`;
      else d["start"] = 42;
      return;
    }
    case "corruptExpression": {
      d["states"] = states ?? {};
      d["states"][`bad-expr-${m.pick}`] = {
        type: "choice",
        choices: [{ when: pickOf(["(", "vars.", "$x(", "1 +", "[1,"], m.pick), next: d["start"] }],
        otherwise: d["start"],
      };
      d["start"] = `bad-expr-${m.pick}`;
      return;
    }
    case "corruptTemplate": {
      d["states"] = states ?? {};
      d["states"][`bad-title-${m.pick}`] = {
        type: "userTask",
        assignee: { user: "u" },
        title: pickOf(["Hi {{ vars.", "{{ }}", "{{ ( }}", "a {{ 1 + }} b"], m.pick),
        next: d["start"],
      };
      d["start"] = `bad-title-${m.pick}`;
      return;
    }
    case "wrongType": {
      const field = pickOf(["key", "name", "start", "states", "triggers", "vars"], m.pick)!;
      d[field] = pickOf([42, [], true, null, "text"], m.pick >> 3);
      // "text" and [] are a right type for some: make sure each is wrong for its field.
      if (field === "key" || field === "name" || field === "start") d[field] = 42;
      if (field === "states" || field === "vars") d[field] = "text";
      if (field === "triggers") d[field] = { method: "GET" };
      return;
    }
    case "dropRequired": {
      const field = pickOf(["key", "name", "start", "states"], m.pick)!;
      delete d[field];
      return;
    }
    case "unknownType": {
      d["states"] = states ?? {};
      d["states"][`odd-${m.pick}`] = {
        type: pickOf(["loop", "task", "UserTask", ""], m.pick),
        next: d["start"],
      };
      d["start"] = `odd-${m.pick}`;
      return;
    }
    case "unknownProperty": {
      const names = states ? Object.keys(states).filter((n) => isRecord(states[n])) : [];
      const name = pickOf(names, m.pick);
      if (name) states![name][`extra${m.pick % 5}`] = 1;
      else d[`extra${m.pick % 5}`] = 1;
      return;
    }
    case "orphanState": {
      d["states"] = states ?? {};
      d["states"][`orphan-${m.pick}`] = { type: "end" };
      // An orphan is unreachable only while nothing names it; nothing else here does.
      return;
    }
    case "spinLoop": {
      d["states"] = states ?? {};
      d["states"]["spin-a"] = {
        type: "choice",
        choices: [{ when: "vars.go", next: "spin-b" }],
        otherwise: d["start"],
      };
      d["states"]["spin-b"] = { type: "call", step: "poll", next: "spin-a" };
      d["start"] = "spin-a";
      return;
    }
    case "badForm": {
      d["states"] = states ?? {};
      d["states"][`form-${m.pick}`] = {
        type: "userTask",
        assignee: { group: "g" },
        title: "Form",
        form: pickOf(
          [{ type: "nope" }, { requried: ["a"] }, { properties: 3 }, { $ref: "#/nowhere" }],
          m.pick,
        ),
        next: d["start"],
      };
      d["start"] = `form-${m.pick}`;
      return;
    }
  }
}

export const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom(...KINDS),
  pick: fc.nat({ max: 1000 }),
});

/** A fixture with one to three mutations applied; always invalid. */
export function mutatedDefinition(key = "mutant"): fc.Arbitrary<Doc> {
  return fc
    .tuple(
      fc.constantFrom(minimal, expenseApproval),
      fc.array(mutationArb, { minLength: 1, maxLength: 3 }),
    )
    .map(([fixture, mutations]) => {
      const d = fixture(key);
      for (const m of mutations) applyMutation(d, m);
      return d;
    });
}
