import { IconFeather } from '@tabler/icons-react';
import classes from './brand.module.css';

export interface BrandProps {
  size?: 'sm' | 'lg';
}

/** The Perch mark and name; plain markup, so the sign-in page shows it without Mantine. */
export function Brand({ size = 'sm' }: BrandProps) {
  const large = size === 'lg';
  return (
    <div className={classes.brand} data-size={size}>
      <div className={classes.mark} aria-hidden>
        <IconFeather size={large ? 26 : 20} stroke={1.8} />
      </div>
      <span className={classes.name}>Perch</span>
    </div>
  );
}
