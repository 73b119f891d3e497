import { Button, Group, Modal, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { X_WEB_MESSAGES, type XWebOperationView } from '@perch/shared';
import { IconPin } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { COMMON_TEXTS } from '@/components/common-texts';
import { ErrorAlert } from '@/components/status-alerts';
import { failureReason } from '@/lib/failure-text';
import { usePhoneLayout } from '@/lib/use-phone-layout';
import { usePinXWebOperationMutation } from '../api/x-web-operations';
import { useAdminNotifier } from '../hooks/use-admin-banner';
import {
  pinFormValues,
  pinRefusalErrors,
  readPinForm,
  type PinField,
  type PinFormErrors,
} from '../utils/x-web-pin-form';
import { X_WEB_TEXTS } from '../utils/x-web-texts';

const MONOSPACE = { input: { fontFamily: 'var(--mantine-font-family-monospace)' } };

interface PinFormProps {
  operation: XWebOperationView;
  onClose: () => void;
}

function PinForm({ operation, onClose }: PinFormProps) {
  const pinMutation = usePinXWebOperationMutation();
  const notify = useAdminNotifier();
  const [values, setValues] = useState(() => pinFormValues(operation));
  const [errors, setErrors] = useState<PinFormErrors>({});
  const [failure, setFailure] = useState<string | null>(null);
  const { name } = operation;

  const field = (key: PinField) => ({
    value: values[key],
    error: errors[key],
    onChange: (event: { currentTarget: { value: string } }) => {
      const value = event.currentTarget.value;
      setValues((current) => ({ ...current, [key]: value }));
      if (errors[key]) setErrors((current) => ({ ...current, [key]: undefined }));
    },
  });

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setFailure(null);
    const read = readPinForm(values);
    if (!read.ok) {
      setErrors(read.errors);
      return;
    }
    setErrors({});
    pinMutation.mutate(
      { name, request: read.request },
      {
        onSuccess: ({ message }) => {
          notify.success(message ?? X_WEB_MESSAGES.operationPinned(name));
          onClose();
        },
        onError: (error) => {
          const fieldErrors = pinRefusalErrors(error, read.request);
          if (fieldErrors) setErrors(fieldErrors);
          else setFailure(failureReason(error, X_WEB_TEXTS.pinFailed(name)));
        },
      },
    );
  };

  return (
    <form onSubmit={handleSubmit} aria-label={X_WEB_TEXTS.pinTitle(name)} noValidate>
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          {X_WEB_TEXTS.pinIntro}
        </Text>
        <TextInput
          label={X_WEB_TEXTS.queryIdLabel}
          description={X_WEB_TEXTS.queryIdHint}
          autoComplete="off"
          spellCheck={false}
          styles={MONOSPACE}
          data-autofocus
          {...field('query_id')}
        />
        <Textarea
          label={X_WEB_TEXTS.featuresLabel}
          description={`${X_WEB_TEXTS.switchesHint} In use: ${X_WEB_TEXTS.featureCount(
            Object.keys(operation.features).length,
          )}.`}
          placeholder='{"responsive_web_graphql_timeline_navigation_enabled": true}'
          rows={4}
          resize="vertical"
          spellCheck={false}
          styles={MONOSPACE}
          {...field('features')}
        />
        <Textarea
          label={X_WEB_TEXTS.fieldTogglesLabel}
          description={`${X_WEB_TEXTS.switchesHint} In use: ${X_WEB_TEXTS.fieldToggleCount(
            Object.keys(operation.field_toggles).length,
          )}.`}
          placeholder='{"withArticlePlainText": false}'
          rows={3}
          resize="vertical"
          spellCheck={false}
          styles={MONOSPACE}
          {...field('field_toggles')}
        />
        {failure ? (
          <ErrorAlert role="alert" testId="x-web-pin-error">
            {failure}
          </ErrorAlert>
        ) : null}
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onClose}>
            {COMMON_TEXTS.cancel}
          </Button>
          <Button type="submit" leftSection={<IconPin size={16} />} loading={pinMutation.isPending}>
            {X_WEB_TEXTS.pinSubmit}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export interface XWebPinDialogProps {
  /** The operation to pin; null keeps the dialog closed. */
  operation: XWebOperationView | null;
  onClose: () => void;
}

/**
 * Pins an operation (super admins): its query id, and optionally its features and field
 * toggles as JSON (left empty, the ones in use are kept). Checked with the request's own schema
 * before it is sent; the server's refusal shows under the field it is about. Fresh values each
 * time it opens.
 */
export function XWebPinDialog({ operation, onClose }: XWebPinDialogProps) {
  const phone = usePhoneLayout();
  // The last operation stays in place while the dialog fades out.
  const [shown, setShown] = useState(operation);
  if (operation !== null && operation !== shown) setShown(operation);
  return (
    <Modal
      opened={operation !== null}
      onClose={onClose}
      title={shown ? X_WEB_TEXTS.pinTitle(shown.name) : undefined}
      size="lg"
      fullScreen={phone}
      centered
    >
      {shown ? <PinForm key={shown.name} operation={shown} onClose={onClose} /> : null}
    </Modal>
  );
}
