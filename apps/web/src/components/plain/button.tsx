import type { ComponentProps, ReactNode } from 'react';
import { Link, type LinkProps } from 'react-router';
import classes from './button.module.css';
import { Loader } from './loader';

interface ButtonLook {
  /** Filled in the primary colour (the default), or Mantine's bordered 'default'. */
  variant?: 'filled' | 'default';
  /** Mantine's sm (the default) or md. */
  size?: 'sm' | 'md';
  /** As wide as its container. */
  fullWidth?: boolean;
}

function lookOf({ variant = 'filled', size = 'sm', fullWidth = false }: ButtonLook) {
  return {
    className: classes.button,
    'data-variant': variant,
    'data-size': size,
    'data-block': fullWidth || undefined,
  };
}

function Content({ children }: { children: ReactNode }) {
  return (
    <span className={classes.inner}>
      <span className={classes.label}>{children}</span>
    </span>
  );
}

export interface ButtonProps extends ButtonLook, Omit<ComponentProps<'button'>, 'className'> {
  /** Shows a spinner in place of the label; the button takes no clicks meanwhile. */
  loading?: boolean;
}

/** A button drawn as Mantine's Button; while loading it is disabled and says so (aria-busy). */
export function Button({
  variant,
  size,
  fullWidth,
  loading = false,
  disabled,
  type = 'button',
  children,
  ...button
}: ButtonProps) {
  return (
    <button
      {...lookOf({ variant, size, fullWidth })}
      type={type}
      disabled={disabled || loading}
      data-loading={loading || undefined}
      aria-busy={loading || undefined}
      {...button}
    >
      {loading ? (
        <span className={classes.spinner}>
          <Loader />
        </span>
      ) : null}
      <Content>{children}</Content>
    </button>
  );
}

export type ButtonLinkProps = ButtonLook & Omit<LinkProps, 'className'>;

/** A link drawn as a Button. */
export function ButtonLink({ variant, size, fullWidth, children, ...link }: ButtonLinkProps) {
  return (
    <Link {...lookOf({ variant, size, fullWidth })} {...link}>
      <Content>{children}</Content>
    </Link>
  );
}

interface TextLook {
  /** In the dimmed text colour instead of the link colour. */
  dimmed?: boolean;
  /** Mantine's sm text (14 px); otherwise the surrounding text's size. */
  size?: 'sm';
}

function textLookOf({ dimmed, size }: TextLook, className?: string) {
  return {
    className: className ? `${classes.anchor} ${className}` : classes.anchor,
    'data-dimmed': dimmed || undefined,
    'data-size': size,
  };
}

export type TextLinkProps = TextLook & Omit<LinkProps, 'className'>;

/** A link inside the app, drawn as Mantine's Anchor (underlined on hover). */
export function TextLink({ dimmed, size, ...link }: TextLinkProps) {
  return <Link {...textLookOf({ dimmed, size })} {...link} />;
}

export type TextButtonProps = TextLook & Omit<ComponentProps<'button'>, 'type'>;

/** A button that reads as a text link, as Mantine's Anchor rendered as a button. */
export function TextButton({ dimmed, size, className, ...button }: TextButtonProps) {
  return <button type="button" {...textLookOf({ dimmed, size }, className)} {...button} />;
}

/** The Anchor look for a plain <a> (e.g. a mailto: link). */
export const anchorClassName = classes.anchor;
