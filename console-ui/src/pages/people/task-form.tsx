/**
 * The completion form of a task: its fields from the form's schema, a button per named
 * action (and a plain "Complete" when the state has a `next`). A refused completion
 * (400) puts each reason on its field and leaves the task open; the first invalid
 * field gets the focus.
 */
import { useEffect, useMemo, useState, type FormEvent } from "react";
import { ApiProblem } from "../../api.ts";
import { FormFieldInput, fieldId } from "./form-field-input.tsx";
import { errorsByField, fieldsOf, initialValues, varsOf, type FormValues } from "./form-fields.ts";
import type { TaskFacts } from "./referral-vars.ts";

interface Props {
  facts: TaskFacts;
  /** Completes the task; throws ApiProblem when the engine refuses. */
  submit: (vars: Record<string, unknown>, action: string | undefined) => Promise<void>;
}

const PLAIN = "";

export function TaskForm({ facts, submit }: Props) {
  const fields = useMemo(() => fieldsOf(facts.form), [facts.form]);
  const [values, setValues] = useState<FormValues>(() => initialValues(fields));
  const [errors, setErrors] = useState<Map<string, string>>(new Map());
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const first = fields.find((f) => errors.has(f.name));
    if (first !== undefined) document.getElementById(fieldId(first.name))?.focus();
  }, [errors, fields]);

  const onSubmit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const submitter = (e.nativeEvent as SubmitEvent).submitter;
    const action = submitter instanceof HTMLButtonElement ? submitter.value : PLAIN;
    setBusy(true);
    setErrors(new Map());
    try {
      await submit(varsOf(fields, values), action === PLAIN ? undefined : action);
    } catch (err) {
      if (err instanceof ApiProblem && err.fields.size > 0)
        setErrors(errorsByField(fields, err.fields));
      else setErrors(new Map([["", err instanceof Error ? err.message : String(err)]]));
    } finally {
      setBusy(false);
    }
  };

  // A field error is read with its field; the alert says that there are some.
  const general = errors.get("") ?? (errors.size > 0 ? "Check the marked fields." : undefined);
  return (
    <form noValidate aria-labelledby="complete-heading" onSubmit={(e) => void onSubmit(e)}>
      <h2 id="complete-heading">Complete the task</h2>
      {fields.map((f) => (
        <FormFieldInput
          key={f.name}
          field={f}
          value={values[f.name] ?? ""}
          error={errors.get(f.name)}
          disabled={busy}
          onChange={(v) => setValues((old) => ({ ...old, [f.name]: v }))}
        />
      ))}
      {general !== undefined && (
        <p role="alert" className="error">
          {general}
        </p>
      )}
      <div className="form-actions">
        {facts.actions.map((a) => (
          <button key={a} type="submit" value={a} disabled={busy}>
            {a}
          </button>
        ))}
        {!facts.actionRequired && (
          <button
            type="submit"
            value={PLAIN}
            disabled={busy}
            className={facts.actions.length > 0 ? "secondary" : undefined}
          >
            Complete
          </button>
        )}
      </div>
    </form>
  );
}
