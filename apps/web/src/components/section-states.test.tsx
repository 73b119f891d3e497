import { MantineProvider } from '@mantine/core';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactElement } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { theme } from '@/app/theme';
import { SectionError } from './section-states';

function renderInTheme(element: ReactElement) {
  return render(
    <MantineProvider theme={theme} env="test">
      {element}
    </MantineProvider>,
  );
}

describe('SectionError', () => {
  it('says what failed and why, and Retry asks again', async () => {
    const onRetry = vi.fn();
    renderInTheme(
      <SectionError
        title="Failed to load the feeds"
        reason="Database unavailable"
        onRetry={onRetry}
        testId="feeds-error"
      />,
    );
    const alert = screen.getByRole('alert');
    expect(alert).toHaveAttribute('data-testid', 'feeds-error');
    expect(within(alert).getByText('Failed to load the feeds')).toBeVisible();
    expect(within(alert).getByText('Database unavailable')).toBeVisible();
    await userEvent
      .setup({ delay: null })
      .click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(onRetry).toHaveBeenCalledTimes(1);
  });

  it('writes a reason that repeats the title once, and spins Retry while it runs', () => {
    renderInTheme(
      <SectionError
        title="Failed to load users."
        reason="Failed to load users."
        retrying
        onRetry={() => undefined}
      />,
    );
    expect(screen.getAllByText('Failed to load users.')).toHaveLength(1);
    expect(screen.getByRole('button', { name: 'Retry' })).toHaveAttribute('data-loading', 'true');
  });

  it('offers no Retry where nothing can be retried, compact or not', () => {
    const { rerender } = renderInTheme(
      <SectionError title="Failed to load handles" reason="Offline" />,
    );
    expect(screen.getByRole('alert')).toHaveTextContent('Offline');
    expect(screen.queryByRole('button')).toBeNull();
    rerender(
      <MantineProvider theme={theme} env="test">
        <SectionError title="Failed to load handles" reason="Offline" compact />
      </MantineProvider>,
    );
    expect(screen.getByRole('alert')).toHaveTextContent('Failed to load handles');
    expect(screen.queryByRole('button')).toBeNull();
  });
});
