import type { ReactNode } from 'react';
import { Brand } from './brand';
import classes from './auth-layout.module.css';
import { TextLink } from './plain/button';
import { ColorSchemeButton } from './plain/color-scheme-button';

export interface AuthLayoutProps {
  /** Card heading, e.g. 'Sign in'. */
  title: string;
  children: ReactNode;
  /** A line under the card, above the FAQ and Home links; its links stand out. */
  footer?: ReactNode;
}

/**
 * The centered card of the sign-in and registration pages. Plain markup (components/plain), not
 * Mantine: the sign-in page is the first of every visit without a session, and shows before
 * Mantine has loaded.
 */
export function AuthLayout({ title, children, footer }: AuthLayoutProps) {
  return (
    <div className={`perch-auth-backdrop ${classes.page}`}>
      <div className={classes.toolbar}>
        <ColorSchemeButton />
      </div>
      <div className={classes.center}>
        <div className={classes.column}>
          <div className={classes.header}>
            <Brand size="lg" />
            <p className={classes.small}>
              Follow X accounts, backfill their tweets and see what works.
            </p>
          </div>
          <div className={classes.card}>
            <h1 className={classes.title}>{title}</h1>
            {children}
          </div>
          <div className={classes.footer}>
            {footer ? <p className={classes.small}>{footer}</p> : null}
            <div className={classes.links}>
              <TextLink to="/faq" dimmed>
                FAQ
              </TextLink>
              <TextLink to="/" dimmed>
                Home
              </TextLink>
            </div>
          </div>
        </div>
      </div>
    </div>
  );
}
