import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { lazy, type ReactElement, type ReactNode } from 'react';
import { RouterProvider, createMemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { theme } from '../theme';
import { RouteErrorPage } from '../routes/error-page';
import { CHUNK_ERROR_TEXT } from './chunk-errors';
import { LazySection } from './lazy-section';

/** What Chromium throws when a chunk is gone from the server (e.g. after an update). */
const chunkError = () =>
  new TypeError('Failed to fetch dynamically imported module: /dashboard/assets/x-1.js');

function renderInTheme(node: ReactNode) {
  return render(
    <MantineProvider theme={theme} env="test">
      {node}
    </MantineProvider>,
  );
}

describe('LazySection', () => {
  it('shows its loading text, then the section', async () => {
    let resolve: (module: { default: () => ReactElement }) => void = () => undefined;
    const Section = lazy(() => new Promise<{ default: () => ReactElement }>((r) => (resolve = r)));
    renderInTheme(
      <LazySection loadingLabel="Loading dashboard..." errorTitle="Failed.">
        <Section />
      </LazySection>,
    );
    expect(await screen.findByRole('status')).toHaveTextContent('Loading dashboard...');
    resolve({ default: () => <p>Loaded section</p> });
    expect(await screen.findByText('Loaded section')).toBeInTheDocument();
  });

  it('offers a reload when the section’s chunk cannot be fetched', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const reload = vi.fn();
    vi.stubGlobal('location', { ...window.location, reload });
    const Section = lazy(() => Promise.reject(chunkError()));
    renderInTheme(
      <>
        <LazySection
          loadingLabel="Loading dashboard..."
          errorTitle="The analytics could not be loaded."
        >
          <Section />
        </LazySection>
        <p>The rest of the page</p>
      </>,
    );
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The analytics could not be loaded.');
    expect(alert).toHaveTextContent(CHUNK_ERROR_TEXT);
    expect(screen.getByText('The rest of the page')).toBeInTheDocument();
    await userEvent
      .setup({ delay: null })
      .click(screen.getByRole('button', { name: 'Reload page' }));
    expect(reload).toHaveBeenCalledOnce();
  });
});

describe('RouteErrorPage', () => {
  it('explains a page whose chunk cannot be fetched, and offers a reload', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const router = createMemoryRouter(
      [
        {
          path: '/admin',
          errorElement: <RouteErrorPage inShell />,
          hydrateFallbackElement: <p>Loading</p>,
          lazy: () => Promise.reject(chunkError()),
        },
      ],
      { initialEntries: ['/admin'] },
    );
    renderInTheme(<RouterProvider router={router} />);
    expect(await screen.findByText(CHUNK_ERROR_TEXT)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Reload page' })).toBeInTheDocument();
  });
});
