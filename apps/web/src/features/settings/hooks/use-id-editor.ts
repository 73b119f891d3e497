import { useState } from 'react';

/** The typed value of a channel or account card's form, its error, and whether it is open. */
export function useIdEditor() {
  const [editing, setEditing] = useState(false);
  const [input, setInput] = useState('');
  const [inputError, setInputError] = useState<string | null>(null);
  return {
    editing,
    input,
    inputError,
    /** Opens the form on the stored value (Change). */
    start: (value: string) => {
      setInput(value);
      setInputError(null);
      setEditing(true);
    },
    /** Closes the form after a save or a disconnect. */
    done: () => {
      setEditing(false);
      setInput('');
    },
    /** Closes the form without saving (Cancel). */
    cancel: () => {
      setEditing(false);
      setInput('');
      setInputError(null);
    },
    /** Says what is wrong with the typed value under the field. */
    fail: setInputError,
    /** The person typed: the new value, and the error goes. */
    change: (value: string) => {
      setInput(value);
      setInputError(null);
    },
  };
}

export type IdEditor = ReturnType<typeof useIdEditor>;
