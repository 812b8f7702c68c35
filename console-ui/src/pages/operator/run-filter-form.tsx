/** The runs list's filter form: the order, status, workflow, who started it, and a creation window. */
import { useState, type FormEvent } from "react";
import { RUN_STATUSES } from "./run-status.ts";
import type { RunFilters } from "./run-filters.ts";

const EMPTY: RunFilters = {
  order: "newest",
  status: "",
  workflow: "",
  startedBy: "",
  createdAfter: "",
  createdBefore: "",
};

export function RunFilterForm({
  value,
  onApply,
}: {
  value: RunFilters;
  onApply: (f: RunFilters) => void;
}) {
  const [f, setF] = useState(value);
  const set = <K extends keyof RunFilters>(k: K, v: RunFilters[K]) => setF({ ...f, [k]: v });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onApply(f);
  };
  const clear = () => {
    setF(EMPTY);
    onApply(EMPTY);
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="Filter runs">
      <div className="field">
        <label htmlFor="f-order">Order</label>
        <select
          id="f-order"
          value={f.order}
          onChange={(e) => set("order", e.target.value === "oldest" ? "oldest" : "newest")}
        >
          <option value="newest">newest first</option>
          <option value="oldest">oldest first</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor="f-status">Status</label>
        <select
          id="f-status"
          value={f.status}
          onChange={(e) => set("status", e.target.value as RunFilters["status"])}
        >
          <option value="">any</option>
          {RUN_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="f-workflow">Workflow</label>
        <input
          id="f-workflow"
          value={f.workflow}
          onChange={(e) => set("workflow", e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="f-started-by">Started by</label>
        <input
          id="f-started-by"
          value={f.startedBy}
          onChange={(e) => set("startedBy", e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="f-after">Created after</label>
        <input
          id="f-after"
          type="datetime-local"
          step="1"
          value={f.createdAfter}
          onChange={(e) => set("createdAfter", e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="f-before">Created before</label>
        <input
          id="f-before"
          type="datetime-local"
          step="1"
          value={f.createdBefore}
          onChange={(e) => set("createdBefore", e.target.value)}
        />
      </div>
      <div className="field-buttons">
        <button type="submit">Apply filters</button>
        <button type="button" className="secondary" onClick={clear}>
          Clear
        </button>
      </div>
    </form>
  );
}
