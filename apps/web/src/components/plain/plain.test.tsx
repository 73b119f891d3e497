import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { COLOR_SCHEME_STORAGE_KEY } from '@/lib/color-scheme';
import { Alert } from './alert';
import { Button } from './button';
import { Checkbox } from './checkbox';
import { ColorSchemeButton } from './color-scheme-button';
import { PasswordField, TextField } from './text-field';

// The plain components render without Mantine's provider (none is set up here) and speak to
// assistive technology as the Mantine components they stand in for.

const person = () => userEvent.setup({ delay: null });

describe('TextField', () => {
  it('is named by its label and described by its error, then its description', () => {
    render(<TextField label="Username" description="Your username" error="Please enter it" />);
    const field = screen.getByLabelText('Username');
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(field).toHaveAccessibleDescription('Please enter it Your username');
  });

  it('is neither invalid nor described without an error or description', () => {
    render(<TextField label="Email" />);
    const field = screen.getByLabelText('Email');
    expect(field).not.toHaveAttribute('aria-invalid');
    expect(field).not.toHaveAttribute('aria-describedby');
  });
});

describe('PasswordField', () => {
  it('shows and hides the characters, keeping the focus in the field', async () => {
    const actor = person();
    render(<PasswordField label="Password" />);
    const field = screen.getByLabelText('Password');
    const toggle = screen.getByRole('button', { name: 'Show characters' });
    expect(field).toHaveAttribute('type', 'password');
    expect(toggle).toHaveAttribute('aria-pressed', 'false');

    await actor.click(field);
    await actor.click(toggle);
    expect(field).toHaveAttribute('type', 'text');
    expect(toggle).toHaveAttribute('aria-pressed', 'true');
    expect(field).toHaveFocus();

    toggle.focus();
    await actor.keyboard('{Enter}');
    expect(field).toHaveAttribute('type', 'password');
    expect(screen.getAllByLabelText(/password/i)).toEqual([field]);
  });

  it('takes no clicks on its toggle while the field is disabled', () => {
    render(<PasswordField label="Password" disabled />);
    expect(screen.getByRole('button', { name: 'Show characters' })).toBeDisabled();
  });
});

describe('Checkbox', () => {
  it('is a checkbox named by its label', async () => {
    const onChange = vi.fn();
    render(<Checkbox label="Remember me" onChange={onChange} />);
    const box = screen.getByRole('checkbox', { name: 'Remember me' });
    await person().click(screen.getByText('Remember me'));
    expect(box).toBeChecked();
    expect(onChange).toHaveBeenCalledTimes(1);
  });
});

describe('Button', () => {
  it('keeps its name and takes no clicks while loading', () => {
    render(
      <Button type="submit" loading>
        Sign in
      </Button>,
    );
    const button = screen.getByRole('button', { name: 'Sign in' });
    expect(button).toBeDisabled();
    expect(button).toHaveAttribute('aria-busy', 'true');
  });
});

describe('Alert', () => {
  it('is announced with its message, and Dismiss calls back', async () => {
    const onDismiss = vi.fn();
    render(
      <Alert kind="error" onDismiss={onDismiss}>
        Wrong password
      </Alert>,
    );
    expect(screen.getByRole('alert')).toHaveAccessibleDescription('Wrong password');
    await person().click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(onDismiss).toHaveBeenCalledTimes(1);
  });
});

describe('ColorSchemeButton', () => {
  it("starts dark, switches to light and keeps it where Mantine's manager reads it", async () => {
    render(<ColorSchemeButton />);
    const toggle = screen.getByRole('button', { name: 'Toggle color scheme' });
    expect(toggle).toHaveAttribute('title', 'Light mode');

    await person().click(toggle);
    expect(window.localStorage.getItem(COLOR_SCHEME_STORAGE_KEY)).toBe('light');
    expect(document.documentElement).toHaveAttribute('data-mantine-color-scheme', 'light');
    expect(toggle).toHaveAttribute('title', 'Dark mode');

    await person().click(toggle);
    expect(window.localStorage.getItem(COLOR_SCHEME_STORAGE_KEY)).toBe('dark');
    expect(document.documentElement).toHaveAttribute('data-mantine-color-scheme', 'dark');
  });

  it('shows the scheme chosen earlier', () => {
    window.localStorage.setItem(COLOR_SCHEME_STORAGE_KEY, 'light');
    render(<ColorSchemeButton />);
    expect(screen.getByRole('button', { name: 'Toggle color scheme' })).toHaveAttribute(
      'title',
      'Dark mode',
    );
  });
});
