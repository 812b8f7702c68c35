/**
 * The completion form of a task: its fields from the task's form (schema and hints), a
 * comment, a button per named action labelled in the reader's language (and a plain
 * "Complete" when the task takes a completion without one). A refused completion (400)
 * puts each reason on its field — the comment's too — and leaves the task open; the
 * first invalid field gets the focus.
 */
import { useEffect, useMemo, useState, type FormEvent } from "react";
import { ApiProblem } from "../../api.ts";
import type { Task } from "../../wire.ts";
import { FormFieldInput, fieldId } from "./form-field-input.tsx";
import { errorsByField, fieldsOf, initialValues, varsOf, type FormValues } from "./form-fields.ts";
import { localized } from "./localized.ts";

export interface Completion {
  vars: Record<string, unknown>;
  action: string | undefined;
  comment: string | undefined;
}

interface Props {
  task: Pick<Task, "form" | "formUi" | "actions" | "actionRequired">;
  /** Completes the task; throws ApiProblem when the engine refuses. */
  submit: (c: Completion) => Promise<void>;
}

const PLAIN = "";
const COMMENT = "comment";
const COMMENT_ID = "task-comment";

export function TaskForm({ task, submit }: Props) {
  const fields = useMemo(() => fieldsOf(task.form, task.formUi), [task.form, task.formUi]);
  const [values, setValues] = useState<FormValues>(() => initialValues(fields));
  const [comment, setComment] = useState("");
  const [errors, setErrors] = useState<Map<string, string>>(new Map());
  const [busy, setBusy] = useState(false);
  const actions = task.actions ?? [];
  const needsComment = actions.filter((a) => a.commentRequired);

  useEffect(() => {
    const first = fields.find((f) => errors.has(f.name));
    if (first !== undefined) document.getElementById(fieldId(first.name))?.focus();
    else if (errors.has(COMMENT)) document.getElementById(COMMENT_ID)?.focus();
  }, [errors, fields]);

  const onSubmit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const submitter = (e.nativeEvent as SubmitEvent).submitter;
    const action = submitter instanceof HTMLButtonElement ? submitter.value : PLAIN;
    setBusy(true);
    setErrors(new Map());
    try {
      await submit({
        vars: varsOf(fields, values),
        action: action === PLAIN ? undefined : action,
        comment: comment.trim() === "" ? undefined : comment.trim(),
      });
    } catch (err) {
      if (err instanceof ApiProblem && err.fields.size > 0) {
        const rest = new Map(err.fields);
        const onComment = rest.get("/comment");
        rest.delete("/comment");
        const byField = errorsByField(fields, rest);
        if (onComment !== undefined) byField.set(COMMENT, onComment);
        setErrors(byField);
      } else setErrors(new Map([["", err instanceof Error ? err.message : String(err)]]));
    } finally {
      setBusy(false);
    }
  };

  // A field error is read with its field; the alert says that there are some.
  const general = errors.get("") ?? (errors.size > 0 ? "Check the marked fields." : undefined);
  const commentError = errors.get(COMMENT);
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
      {actions.length > 0 && (
        <div className="field">
          <label htmlFor={COMMENT_ID}>Your comment</label>
          <textarea
            id={COMMENT_ID}
            name={COMMENT}
            rows={3}
            value={comment}
            disabled={busy}
            aria-invalid={commentError !== undefined ? true : undefined}
            aria-describedby={
              [
                needsComment.length > 0 ? `${COMMENT_ID}-hint` : null,
                commentError && `${COMMENT_ID}-error`,
              ]
                .filter(Boolean)
                .join(" ") || undefined
            }
            onChange={(e) => setComment(e.target.value)}
          />
          {needsComment.length > 0 && (
            <p id={`${COMMENT_ID}-hint`} className="hint">
              Required to {needsComment.map((a) => localized(a.label) ?? a.name).join(", ")}.
            </p>
          )}
          {commentError !== undefined && (
            <p id={`${COMMENT_ID}-error`} className="field-error">
              {commentError}
            </p>
          )}
        </div>
      )}
      {general !== undefined && (
        <p role="alert" className="error">
          {general}
        </p>
      )}
      <div className="form-actions">
        {actions.map((a) => (
          <button key={a.name} type="submit" value={a.name} disabled={busy}>
            {localized(a.label) ?? a.name}
          </button>
        ))}
        {!task.actionRequired && (
          <button
            type="submit"
            value={PLAIN}
            disabled={busy}
            className={actions.length > 0 ? "secondary" : undefined}
          >
            Complete
          </button>
        )}
      </div>
    </form>
  );
}
