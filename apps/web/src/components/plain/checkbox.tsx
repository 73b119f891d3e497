import { useId, type ComponentProps } from 'react';
import classes from './checkbox.module.css';

export interface CheckboxProps extends Omit<ComponentProps<'input'>, 'type' | 'size'> {
  label: string;
}

/** A native checkbox drawn as Mantine's Checkbox (size sm), its label beside it. */
export function Checkbox({ label, id, ...input }: CheckboxProps) {
  const generatedId = useId();
  const inputId = id ?? generatedId;
  return (
    <div className={classes.root}>
      <div className={classes.box}>
        <input className={classes.input} id={inputId} type="checkbox" {...input} />
        <svg className={classes.icon} viewBox="0 0 10 7" fill="none" aria-hidden>
          <path
            d="M4 4.586L1.707 2.293A1 1 0 1 0 .293 3.707l3 3a.997.997 0 0 0 1.414 0l5-5A1 1 0 1 0 8.293.293L4 4.586z"
            fill="currentColor"
            fillRule="evenodd"
            clipRule="evenodd"
          />
        </svg>
      </div>
      <label className={classes.label} htmlFor={inputId}>
        {label}
      </label>
    </div>
  );
}
