import type { ComponentChildren } from "preact";
import { useId } from "preact/hooks";

interface FieldProps {
  label: string;
  hint?: ComponentChildren;
  error?: string;
  children: (props: { id: string; "aria-invalid"?: boolean; "aria-describedby"?: string }) => ComponentChildren;
}

/** A labelled control with its hint and its error below it, tied together for screen readers. */
export function Field({ label, hint, error, children }: FieldProps) {
  const id = useId();
  const describedBy = error ? `${id}-error` : hint ? `${id}-hint` : undefined;
  return (
    <div class={`field${error ? " field-invalid" : ""}`}>
      <label for={id}>{label}</label>
      {children({ id, "aria-invalid": error ? true : undefined, "aria-describedby": describedBy })}
      {error ? (
        <p id={`${id}-error`} class="field-error" role="alert">
          {error}
        </p>
      ) : (
        hint && (
          <p id={`${id}-hint`} class="field-hint">
            {hint}
          </p>
        )
      )}
    </div>
  );
}

type InputProps = {
  type?: "text" | "password" | "search" | "url" | "datetime-local";
  placeholder?: string;
  required?: boolean;
  autocomplete?: string;
  inputMode?: "decimal" | "numeric";
  minLength?: number;
  label: string;
  value: string;
  onValue(value: string): void;
  hint?: ComponentChildren;
  error?: string;
};

export const TextField = ({ label, value, onValue, hint, error, ...rest }: InputProps) => (
  <Field label={label} hint={hint} error={error}>
    {/* Preact types an input by its `type`; this one takes any of the text kinds. */}
    {(ids) => <input {...(rest as { type?: "text" })} {...ids} value={value} onInput={(event) => onValue(event.currentTarget.value)} />}
  </Field>
);

interface SelectProps {
  label: string;
  value: string;
  onValue(value: string): void;
  options: Array<string | { value: string; label: string }>;
  hint?: ComponentChildren;
  error?: string;
}

export const SelectField = ({ label, value, onValue, options, hint, error }: SelectProps) => (
  <Field label={label} hint={hint} error={error}>
    {(ids) => (
      <select {...ids} value={value} onChange={(event) => onValue(event.currentTarget.value)}>
        {options.map((option) => {
          const { value: optionValue, label: optionLabel } = typeof option === "string" ? { value: option, label: option } : option;
          return (
            <option key={optionValue} value={optionValue}>
              {optionLabel}
            </option>
          );
        })}
      </select>
    )}
  </Field>
);

export const Checkbox = ({ label, checked, onChecked }: { label: string; checked: boolean; onChecked(checked: boolean): void }) => (
  <label class="checkbox">
    <input type="checkbox" checked={checked} onChange={(event) => onChecked(event.currentTarget.checked)} /> {label}
  </label>
);
