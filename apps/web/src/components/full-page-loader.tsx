import classes from './full-page-loader.module.css';
import { Loader } from './plain/loader';

export interface FullPageLoaderProps {
  /** Visible status text, e.g. 'Initializing...'; omit for a bare spinner. */
  label?: string;
}

/**
 * A centered spinner that fills the viewport while something essential loads. Plain markup: it
 * shows while Mantine itself is loading.
 */
export function FullPageLoader({ label }: FullPageLoaderProps) {
  return (
    <div className={classes.page} role="status" aria-live="polite" aria-label={label ?? 'Loading'}>
      <Loader type="dots" size="lg" />
      {label ? <p className={classes.label}>{label}</p> : null}
    </div>
  );
}
