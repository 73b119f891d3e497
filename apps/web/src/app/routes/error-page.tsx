import { IconBug } from '@tabler/icons-react';
import { isRouteErrorResponse, useRouteError } from 'react-router';
import { Button, ButtonLink } from '@/components/plain/button';
import { CHUNK_ERROR_TEXT, RELOAD_TEXT, isChunkLoadError } from '../lazy/chunk-errors';
import classes from './error-page.module.css';

export const ERROR_PAGE_TITLE = 'Unexpected Application Error!';

function describe(error: unknown): string {
  if (isRouteErrorResponse(error)) return `${error.status} ${error.statusText}`.trim();
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  return 'Unknown error';
}

export interface RouteErrorPageProps {
  /**
   * Inside the signed-in shell (a page failed, or its chunk did not load): the header and menu
   * stay, so the page takes the main area only, not the whole viewport.
   */
  inShell?: boolean;
}

/**
 * The router's fallback when a route throws, or its code could not be loaded. Plain markup, not
 * Mantine: Mantine's own chunk may be the one that failed.
 */
export function RouteErrorPage({ inShell = false }: RouteErrorPageProps) {
  const error = useRouteError();
  const chunkFailed = isChunkLoadError(error);
  return (
    <div className={classes.page} data-in-shell={inShell || undefined} data-testid="route-error">
      <div className={classes.stack}>
        <div className={classes.icon} aria-hidden>
          <IconBug size={34} />
        </div>
        <h1 className={classes.title}>{ERROR_PAGE_TITLE}</h1>
        {chunkFailed ? <p className={classes.text}>{CHUNK_ERROR_TEXT}</p> : null}
        <pre className={classes.code}>{describe(error)}</pre>
        <div className={classes.actions}>
          <Button onClick={() => window.location.reload()}>{RELOAD_TEXT}</Button>
          <ButtonLink to="/" variant="default" reloadDocument>
            Go back home
          </ButtonLink>
        </div>
      </div>
    </div>
  );
}
