/**
 * What the page says when a part of the app loaded on demand (a route's or a section's chunk)
 * could not be fetched: usually because a new version was installed since the page was opened,
 * and the old chunk files are gone from the server. Reloading loads the new version.
 */
export const CHUNK_ERROR_TEXT =
  'A part of the app could not be loaded, perhaps because a new version was installed. ' +
  'Reloading the page usually fixes it.';

/** The button that loads the page, and with it the installed version, again. */
export const RELOAD_TEXT = 'Reload page';

/** A failed dynamic import(), in the words of Chromium, WebKit, Firefox or the bundler. */
export function isChunkLoadError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    error.name === 'ChunkLoadError' ||
    /dynamically imported module|Importing a module script failed|error loading dynamically|Unable to preload CSS/i.test(
      error.message,
    )
  );
}
