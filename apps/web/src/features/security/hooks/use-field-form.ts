import { useState } from 'react';

/**
 * A form's text fields and their errors: typing in a field clears its error, `check` validates
 * every field at submit (true when the form may be sent), `reset` empties the fields.
 */
export function useFieldForm<F extends string>(
  empty: Record<F, string>,
  validate: (values: Record<F, string>) => Partial<Record<F, string>>,
) {
  const [values, setValues] = useState(empty);
  const [errors, setErrors] = useState<Partial<Record<F, string>>>({});
  const setValue = (field: F, value: string) => {
    setValues((current) => ({ ...current, [field]: value }));
    setErrors((current) => ({ ...current, [field]: undefined }));
  };
  const check = () => {
    const found = validate(values);
    setErrors(found);
    return !Object.values(found).some(Boolean);
  };
  return { values, errors, setErrors, setValue, check, reset: () => setValues(empty) };
}
