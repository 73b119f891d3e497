import type { CSSProperties } from 'react';
import classes from './loader.module.css';

/** Mantine's loader sizes, in rem. */
const SIZES = { sm: 1.375, md: 2.25, lg: 2.75 } as const;

export interface LoaderProps {
  /** Mantine's oval (the default) or its three dots. */
  type?: 'oval' | 'dots';
  /** md when not given (or the size its container sets). */
  size?: keyof typeof SIZES;
  /** Announces it (a status named so); without one it is decoration. */
  label?: string;
}

/** The spinning oval or the pulsing dots of Mantine's Loader. */
export function Loader({ type = 'oval', size, label }: LoaderProps) {
  const style = size ? ({ '--loader-size': `${SIZES[size]}rem` } as CSSProperties) : undefined;
  const a11y = label ? { role: 'status', 'aria-label': label } : { 'aria-hidden': true };
  if (type === 'oval') {
    return <span className={`${classes.loader} ${classes.oval}`} style={style} {...a11y} />;
  }
  return (
    <span className={`${classes.loader} ${classes.dots}`} style={style} {...a11y}>
      <span className={classes.dot} />
      <span className={classes.dot} />
      <span className={classes.dot} />
    </span>
  );
}
