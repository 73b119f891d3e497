import { Alert, Button, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import {
  WEBHOOK_API_MESSAGES,
  WEBHOOK_PRESETS,
  webhookEndpointInputSchema,
  type WebhookEndpoint,
  type WebhookEndpointInput,
  type WebhookEndpointUpdate,
  type WebhookPreset,
} from '@perch/shared';
import { IconAlertCircle } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { useCreateWebhookMutation } from '../api/create-webhook';
import { useUpdateWebhookMutation } from '../api/update-webhook';
import {
  WEBHOOK_PRESET_TEXTS,
  WEBHOOK_TEXTS,
  webhookSaveError,
  type WebhookField,
} from '../utils/webhook-texts';
import type { ShownSecret } from './webhook-secret-modal';

const PRESET_OPTIONS = WEBHOOK_PRESETS.map((preset) => ({
  value: preset,
  label: WEBHOOK_PRESET_TEXTS[preset].label,
}));

function isPreset(value: string | null): value is WebhookPreset {
  return (WEBHOOK_PRESETS as readonly (string | null)[]).includes(value);
}

type FieldErrors = Partial<Record<WebhookField, string>>;

/** The fields that differ from the saved endpoint: PATCH sends only those. */
function changesOf(saved: WebhookEndpoint, input: WebhookEndpointInput): WebhookEndpointUpdate {
  const changes: WebhookEndpointUpdate = {};
  if (input.name !== saved.name) changes.name = input.name;
  if (input.url !== saved.url) changes.url = input.url;
  if (input.preset !== saved.preset) changes.preset = input.preset;
  return changes;
}

interface WebhookFormProps {
  /** The endpoint being edited, or null to add one. */
  editing: WebhookEndpoint | null;
  readOnly: boolean;
  saving: boolean;
  onCancel: () => void;
  /** Saves checked values; `refused` says at the right field why the server refused them. */
  onSubmit: (input: WebhookEndpointInput, refused: (error: unknown) => void) => void;
}

/**
 * The fields of one endpoint, checked with the shared schema first (what the browser can know),
 * then by the server, whose check of the address decides: its refusal shows at the field it
 * is about.
 */
function WebhookForm({ editing, readOnly, saving, onCancel, onSubmit }: WebhookFormProps) {
  const [name, setName] = useState(editing?.name ?? '');
  const [url, setUrl] = useState(editing?.url ?? '');
  const [preset, setPreset] = useState<WebhookPreset>(editing?.preset ?? 'generic');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);

  const refused = (error: unknown) => {
    const { field, text } = webhookSaveError(error);
    if (field) setErrors({ [field]: text });
    else setFormError(text);
  };

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (saving || readOnly) return;
    setFormError(null);
    const parsed = webhookEndpointInputSchema.safeParse({ name, url, preset });
    if (!parsed.success) {
      const found: FieldErrors = {};
      for (const issue of parsed.error.issues) {
        const field = issue.path[0] as WebhookField;
        found[field] ??= issue.message;
      }
      setErrors(found);
      return;
    }
    setErrors({});
    onSubmit(parsed.data, refused);
  };

  return (
    <form onSubmit={handleSubmit} noValidate>
      <Stack gap="md">
        {formError ? (
          <Alert
            color="red"
            variant="light"
            icon={<IconAlertCircle size={18} />}
            role="alert"
            data-testid="webhook-form-error"
          >
            {formError}
          </Alert>
        ) : null}
        <TextInput
          label={WEBHOOK_TEXTS.nameLabel}
          description={WEBHOOK_TEXTS.nameHelp}
          placeholder="e.g. Team alerts"
          autoComplete="off"
          value={name}
          error={errors.name}
          data-autofocus
          onChange={(event) => {
            setName(event.currentTarget.value);
            setErrors(({ name: _gone, ...rest }) => rest);
          }}
        />
        <TextInput
          label={WEBHOOK_TEXTS.urlLabel}
          description={WEBHOOK_TEXTS.urlHelp}
          placeholder="https://example.com/perch-webhook"
          type="url"
          autoComplete="off"
          spellCheck={false}
          value={url}
          error={errors.url}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          onChange={(event) => {
            setUrl(event.currentTarget.value);
            setErrors(({ url: _gone, ...rest }) => rest);
          }}
        />
        <Select
          label={WEBHOOK_TEXTS.presetLabel}
          description={WEBHOOK_PRESET_TEXTS[preset].explanation}
          data={PRESET_OPTIONS}
          value={preset}
          allowDeselect={false}
          error={errors.preset}
          comboboxProps={{ withinPortal: true }}
          renderOption={({ option }) => (
            <Stack gap={0}>
              <Text size="sm">{option.label}</Text>
              <Text size="xs" c="dimmed">
                {isPreset(option.value) ? WEBHOOK_PRESET_TEXTS[option.value].explanation : null}
              </Text>
            </Stack>
          )}
          onChange={(value) => {
            if (isPreset(value)) setPreset(value);
            setErrors(({ preset: _gone, ...rest }) => rest);
          }}
        />
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" color="cyan" loading={saving} disabled={readOnly}>
            {editing ? 'Save' : WEBHOOK_TEXTS.add}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export interface WebhookFormModalProps {
  /** Open to add (null) or to edit an endpoint; undefined keeps it closed. */
  target: WebhookEndpoint | null | undefined;
  /** The server is not answering: nothing can be saved. */
  readOnly: boolean;
  onClose: () => void;
  /** An endpoint was added: its secret, to show once. */
  onCreated: (shown: ShownSecret) => void;
  onSaved: (endpoint: WebhookEndpoint) => void;
}

/**
 * The Add and Edit dialog of a webhook; each opening starts from the saved values. The requests
 * belong to the dialog, not to its form: a secret that arrives after the form was closed is
 * still shown.
 */
export function WebhookFormModal({
  target,
  readOnly,
  onClose,
  onCreated,
  onSaved,
}: WebhookFormModalProps) {
  const createMutation = useCreateWebhookMutation();
  const updateMutation = useUpdateWebhookMutation();
  const opened = target !== undefined;

  const handleSubmit = (input: WebhookEndpointInput, refused: (error: unknown) => void) => {
    if (!target) {
      createMutation.mutate(input, {
        onSuccess: (answer) => onCreated({ ...answer, intro: WEBHOOK_API_MESSAGES.created }),
        onError: refused,
      });
      return;
    }
    const changes = changesOf(target, input);
    if (Object.keys(changes).length === 0) {
      onClose();
      return;
    }
    updateMutation.mutate({ id: target.id, changes }, { onSuccess: onSaved, onError: refused });
  };

  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={target ? WEBHOOK_TEXTS.editTitle : WEBHOOK_TEXTS.addTitle}
      centered
      size="lg"
    >
      {opened ? (
        <WebhookForm
          key={target?.id ?? 'new'}
          editing={target}
          readOnly={readOnly}
          saving={createMutation.isPending || updateMutation.isPending}
          onCancel={onClose}
          onSubmit={handleSubmit}
        />
      ) : null}
    </Modal>
  );
}
