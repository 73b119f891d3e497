import type { SaveSettingsRequest } from '@perch/shared';
import type { FormEvent } from 'react';
import type { z } from 'zod';
import type { AlertMessage } from '@/components/message-alert';
import { useSaveSettingsMutation } from '../api/save-settings';
import { refusalOr } from '../utils/settings-messages';
import { useIdEditor } from './use-id-editor';
import { useSingleFlight } from './use-single-flight';

/** The stored setting a channel card edits; saving it empty disconnects. */
export type ChannelField = 'telegram_chat_id' | 'discord_user_id' | 'twitter_username';

/** The value to store, or what is wrong with what was typed. */
export type IdCheck = { value: string } | { error: string };

/** The check of a shared schema: its normalised value, else its first message or the fallback. */
export function schemaCheck(schema: z.ZodType<string, string>, fallback: string) {
  return (input: string): IdCheck => {
    const parsed = schema.safeParse(input);
    if (parsed.success) return { value: parsed.data };
    return { error: parsed.error.issues[0]?.message ?? fallback };
  };
}

/** The texts of a card's outcomes. */
export interface ChannelTexts {
  saved: string;
  /** Said when a save fails without the server's own refusal. */
  saveFailed: string;
  disconnected: string;
  disconnectFailed: (error: unknown) => string;
}

/** A channel's test message. */
export interface ChannelTest {
  /** Sends it to an id (the card's test mutation). */
  send: (value: string) => Promise<unknown>;
  succeeded: string;
  /** What a failed test says, with a second line when the service gave one. */
  failed: (error: unknown) => Omit<AlertMessage, 'kind'>;
}

/** The callbacks of a save's mutation. */
interface SaveOutcome {
  onSuccess: () => void;
  onError: (error: unknown) => void;
}

export interface ChannelIdOptions {
  field: ChannelField;
  /** The stored value; null while none is. */
  stored: string | null;
  /** Checks what was typed; `forTest` when a test message is about to go to it. */
  check: (input: string, forTest: boolean) => IdCheck;
  texts: ChannelTexts;
  /** Where outcomes go: the page's banners, or the card's own message line. */
  report: (message: AlertMessage) => void;
  /** Leave it out for an account that takes no test message. */
  test?: ChannelTest;
}

/**
 * What a channel card does with its one stored value: the form (checked, then saved), Change,
 * Disconnect, and test messages, one at a time, to the typed or the stored value.
 */
export function useChannelId({ field, stored, check, texts, report, test }: ChannelIdOptions) {
  const editor = useIdEditor();
  const saveMutation = useSaveSettingsMutation();
  const testFlight = useSingleFlight();

  /** The typed value once checked; null when the field now says what is wrong. */
  const checkedInput = (forTest: boolean): string | null => {
    const checked = check(editor.input, forTest);
    if ('error' in checked) {
      editor.fail(checked.error);
      return null;
    }
    return checked.value;
  };

  const save = (value: string, outcome: SaveOutcome) => {
    const body: SaveSettingsRequest = { [field]: value };
    saveMutation.mutate(body, outcome);
  };

  const sendTest = (value: string) => {
    if (!test) return;
    testFlight.run(() =>
      test.send(value).then(
        () => report({ kind: 'success', text: test.succeeded }),
        (error: unknown) => report({ kind: 'error', ...test.failed(error) }),
      ),
    );
  };

  /** The outcome of a disconnect, also for one made another way (an account linked through X). */
  const disconnected: SaveOutcome = {
    onSuccess: () => {
      editor.done();
      report({ kind: 'success', text: texts.disconnected });
    },
    onError: (error: unknown) => report({ kind: 'error', text: texts.disconnectFailed(error) }),
  };

  const handleSave = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const value = checkedInput(false);
    if (value === null) return;
    save(value, {
      onSuccess: () => {
        editor.done();
        report({ kind: 'success', text: texts.saved });
      },
      onError: (error) => report({ kind: 'error', text: refusalOr(error, texts.saveFailed) }),
    });
  };

  const handleFormTest = () => {
    const value = checkedInput(true);
    if (value !== null) sendTest(value);
  };

  return {
    editor,
    saving: saveMutation.isPending,
    testing: testFlight.isRunning,
    handleSave,
    /** The form's Test; undefined for an account without tests. */
    handleFormTest: test ? handleFormTest : undefined,
    /** Test beside the stored value. */
    testStored: () => sendTest(stored ?? ''),
    /** Change: the form opens on the stored value. */
    change: () => editor.start(stored ?? ''),
    disconnect: () => save('', disconnected),
    disconnected,
  };
}

export type ChannelId = ReturnType<typeof useChannelId>;
