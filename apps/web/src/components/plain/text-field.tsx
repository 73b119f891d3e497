import { useId, useState, type ComponentProps, type ReactNode } from 'react';
import classes from './text-field.module.css';

/** The props of an <input> (`className` styles the input itself) and the field's parts. */
export interface TextFieldProps extends Omit<ComponentProps<'input'>, 'size'> {
  label: string;
  /** A line under the label. */
  description?: ReactNode;
  /** Shown under the field in red; the field is then marked invalid. */
  error?: ReactNode;
  /** An icon inside the field, before the text. */
  leftSection?: ReactNode;
  /** Something inside the field after the text (a button takes clicks). */
  rightSection?: ReactNode;
}

/**
 * A labelled text field that looks like Mantine's TextInput (size sm) and is wired the same way
 * for assistive technology: the label names it, the error and the description describe it (the
 * error first), and an error marks it invalid.
 */
export function TextField({
  label,
  description,
  error,
  leftSection,
  rightSection,
  id,
  className,
  ...input
}: TextFieldProps) {
  const generatedId = useId();
  const inputId = id ?? generatedId;
  const errorId = `${inputId}-error`;
  const descriptionId = `${inputId}-description`;
  const describedBy = [error ? errorId : null, description ? descriptionId : null]
    .filter(Boolean)
    .join(' ');
  return (
    <div className={classes.root}>
      <label className={classes.label} htmlFor={inputId}>
        {label}
      </label>
      {description ? (
        <p className={classes.description} id={descriptionId}>
          {description}
        </p>
      ) : null}
      <div
        className={classes.wrapper}
        data-error={error ? true : undefined}
        data-with-left-section={leftSection ? true : undefined}
        data-with-right-section={rightSection ? true : undefined}
      >
        {leftSection ? (
          <div className={classes.section} data-position="left">
            {leftSection}
          </div>
        ) : null}
        <input
          className={className ? `${classes.input} ${className}` : classes.input}
          id={inputId}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy || undefined}
          {...input}
        />
        {rightSection ? (
          <div className={classes.section} data-position="right">
            {rightSection}
          </div>
        ) : null}
      </div>
      {error ? (
        <p className={classes.error} id={errorId}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

export type PasswordFieldProps = Omit<TextFieldProps, 'type' | 'rightSection'>;

/**
 * A password field with a show/hide button, as Mantine's PasswordInput: the button is named
 * 'Show characters' (so the field is the only thing on the page labelled 'Password'), says
 * whether the characters show (aria-pressed), can be reached with Tab and leaves the focus in
 * the field when clicked.
 */
export function PasswordField(props: PasswordFieldProps) {
  const [visible, setVisible] = useState(false);
  const toggle = (
    <button
      type="button"
      className={classes.toggle}
      aria-label="Show characters"
      aria-pressed={visible}
      disabled={props.disabled}
      // Keeps the caret in the field; the click (or Enter, Space) does the toggling.
      onMouseDown={(event) => event.preventDefault()}
      onClick={() => setVisible((shown) => !shown)}
    >
      <VisibilityIcon visible={visible} />
    </button>
  );
  return <TextField {...props} type={visible ? 'text' : 'password'} rightSection={toggle} />;
}

/** Mantine's eye (and crossed eye) of PasswordInput. */
function VisibilityIcon({ visible }: { visible: boolean }) {
  const stroke = {
    fill: 'none',
    stroke: 'currentColor',
    strokeLinecap: 'round',
    strokeLinejoin: 'round',
    strokeWidth: 16,
  } as const;
  return (
    <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 256 256" aria-hidden>
      {visible ? (
        <>
          <path
            {...stroke}
            d="M48 40l160 176M154.91 157.6a40 40 0 01-53.82-59.2M135.53 88.71a40 40 0 0132.3 35.53"
          />
          <path
            {...stroke}
            d="M208.61 169.1C230.41 149.58 240 128 240 128s-32-72-112-72a126 126 0 00-20.68 1.68M74 68.6C33.23 89.24 16 128 16 128s32 72 112 72a118.05 118.05 0 0054-12.6"
          />
        </>
      ) : (
        <>
          <path
            {...stroke}
            d="M128 56c-80 0-112 72-112 72s32 72 112 72 112-72 112-72-32-72-112-72z"
          />
          <circle {...stroke} cx="128" cy="128" r="40" />
        </>
      )}
    </svg>
  );
}
