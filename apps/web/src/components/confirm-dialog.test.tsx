import { MantineProvider } from '@mantine/core';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { theme } from '@/app/theme';
import { ConfirmDialog } from './confirm-dialog';

/** A page that asks before deleting @nasa, with the question built afresh on every render. */
function Page() {
  const [asking, setAsking] = useState(false);
  const [done, setDone] = useState('');
  return (
    <>
      <button type="button" onClick={() => setAsking(true)}>
        Delete
      </button>
      <p>{done}</p>
      <ConfirmDialog
        question={
          asking
            ? {
                title: 'Delete handle',
                message: 'Delete @nasa everywhere?',
                confirmLabel: 'Delete it',
              }
            : null
        }
        onConfirm={() => {
          setAsking(false);
          setDone('deleted');
        }}
        onCancel={() => setAsking(false)}
      />
    </>
  );
}

const renderPage = () =>
  render(
    <MantineProvider theme={theme} env="test">
      <Page />
    </MantineProvider>,
  );

describe('ConfirmDialog', () => {
  it('asks with its title, question and button, Cancel focused first, and leaves things as they were on Cancel', async () => {
    const person = userEvent.setup({ delay: null });
    renderPage();
    await person.click(screen.getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete handle' });
    expect(screen.getByTestId('confirm-message')).toHaveTextContent('Delete @nasa everywhere?');
    expect(screen.getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await person.click(screen.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(dialog).not.toBeInTheDocument());
    expect(screen.queryByText('deleted')).not.toBeInTheDocument();
  });

  it('runs the action on confirm', async () => {
    const person = userEvent.setup({ delay: null });
    renderPage();
    await person.click(screen.getByRole('button', { name: 'Delete' }));
    await person.click(await screen.findByRole('button', { name: 'Delete it' }));
    expect(await screen.findByText('deleted')).toBeInTheDocument();
  });
});
