/**
 * The inputs of each step, and the vars they make: what the definition's forms
 * ask for (examples/definitions/employee-termination/definition.yaml).
 */
import type { Step } from "./task-view.ts";

export type Fields = Record<string, string | boolean>;

interface Props {
  step: Step;
  /** The task id, to keep input ids unique on the page. */
  id: string;
  fields: Fields;
  onChange: (f: Fields) => void;
}

const list = (s: unknown): string[] =>
  typeof s === "string"
    ? s
        .split(",")
        .map((x) => x.trim())
        .filter((x) => x !== "")
    : [];

export function varsOf(step: Step, f: Fields): Record<string, unknown> {
  switch (step) {
    case "it":
      return { accountsRevoked: f.accountsRevoked === true, equipmentReturned: list(f.equipment) };
    case "finance":
      return { finalPay: Number(f.finalPay) };
    case "handover":
      return typeof f.successor === "string" && f.successor !== ""
        ? { successor: f.successor }
        : {};
    case "close":
      return { action: "close" };
  }
}

export function StepFields({ step, id, fields, onChange }: Props) {
  const text = (name: string) => (typeof fields[name] === "string" ? fields[name] : "");
  const set = (name: string, value: string | boolean) => onChange({ ...fields, [name]: value });
  switch (step) {
    case "it":
      return (
        <>
          <label htmlFor={`revoked-${id}`}>Accounts revoked</label>
          <input
            id={`revoked-${id}`}
            type="checkbox"
            checked={fields.accountsRevoked === true}
            onChange={(e) => set("accountsRevoked", e.target.checked)}
            required
          />
          <label htmlFor={`equipment-${id}`}>Equipment returned (comma-separated)</label>
          <input
            id={`equipment-${id}`}
            value={text("equipment")}
            onChange={(e) => set("equipment", e.target.value)}
          />
        </>
      );
    case "finance":
      return (
        <>
          <label htmlFor={`pay-${id}`}>Final pay</label>
          <input
            id={`pay-${id}`}
            type="number"
            min="0"
            step="0.01"
            value={text("finalPay")}
            onChange={(e) => set("finalPay", e.target.value)}
            required
          />
        </>
      );
    case "handover":
      return (
        <>
          <label htmlFor={`successor-${id}`}>Successor</label>
          <input
            id={`successor-${id}`}
            value={text("successor")}
            onChange={(e) => set("successor", e.target.value)}
          />
        </>
      );
    case "close":
      return <p>Every team is done; closing the file ends the termination.</p>;
  }
}
