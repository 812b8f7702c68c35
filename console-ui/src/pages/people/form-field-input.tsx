/**
 * One form field: its label, input, hint and the engine's error. An invalid field is
 * marked aria-invalid and points at its message with aria-describedby, so a screen
 * reader reads the reason with the field.
 */
import type { FormField } from "./form-fields.ts";

interface Props {
  field: FormField;
  value: string | boolean;
  error: string | undefined;
  disabled: boolean;
  onChange: (v: string | boolean) => void;
}

export const fieldId = (name: string): string => `field-${name.replace(/[^A-Za-z0-9_-]/g, "_")}`;

export function FormFieldInput({ field, value, error, disabled, onChange }: Props) {
  const id = fieldId(field.name);
  const hintId = field.description === null ? null : `${id}-hint`;
  const errorId = error === undefined ? null : `${id}-error`;
  const describedBy = [hintId, errorId].filter((x) => x !== null).join(" ") || undefined;
  const common = {
    id,
    name: field.name,
    disabled,
    "aria-invalid": error !== undefined ? true : undefined,
    "aria-describedby": describedBy,
    "aria-required": field.required ? true : undefined,
  };
  const text = typeof value === "string" ? value : "";
  return (
    <div className={field.kind === "boolean" ? "field field-check" : "field"}>
      <label htmlFor={id}>
        {field.label}
        {field.required && <span aria-hidden="true"> *</span>}
      </label>
      {field.kind === "boolean" ? (
        <input
          {...common}
          type="checkbox"
          checked={value === true}
          onChange={(e) => onChange(e.target.checked)}
        />
      ) : field.kind === "select" ? (
        <select {...common} value={text} onChange={(e) => onChange(e.target.value)}>
          <option value="">—</option>
          {field.options.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      ) : field.kind === "textarea" || field.kind === "json" ? (
        <textarea
          {...common}
          rows={field.kind === "json" ? 4 : 3}
          value={text}
          onChange={(e) => onChange(e.target.value)}
        />
      ) : (
        <input
          {...common}
          type={field.kind === "date" ? "date" : "text"}
          inputMode={
            field.kind === "number" ? "decimal" : field.kind === "integer" ? "numeric" : undefined
          }
          value={text}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
      {hintId !== null && (
        <p id={hintId} className="hint">
          {field.description}
        </p>
      )}
      {errorId !== null && (
        <p id={errorId} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}
