import { Button, Group, Modal, NativeSelect, Stack, TextInput } from '@mantine/core';
import { ALERT_NAME_MAX_LENGTH, type AlertKindType, type AlertRule } from '@perch/shared';
import { useState, type FormEvent } from 'react';
import { ErrorAlert } from '@/components/status-alerts';
import { refusalText } from '@/lib/failure-text';
import { usePhoneLayout } from '@/lib/use-phone-layout';
import { useCreateAlertRuleMutation } from '../api/create-alert-rule';
import { useUpdateAlertRuleMutation } from '../api/update-alert-rule';
import { ALERT_TEXTS, KIND_LABELS, KIND_ORDER } from '../utils/alert-texts';
import {
  checkCreate,
  checkUpdate,
  initialValues,
  type RuleFormErrors,
  type RuleFormField,
  type RuleFormValues,
} from '../utils/rule-form';
import { KindFields } from './kind-fields';

/** What the dialog is open for: a new rule (for a handle, when chosen already) or an edit. */
export type RuleFormTarget =
  { mode: 'create'; handle?: string } | { mode: 'edit'; rule: AlertRule };

export interface RuleFormModalProps {
  /** Null keeps the dialog closed. */
  target: RuleFormTarget | null;
  /** The followed handles a new rule can be for. */
  handles: readonly string[];
  onClose: () => void;
  /** The rule was stored: what to tell the person. */
  onSaved: (message: string) => void;
}

const KIND_OPTIONS = KIND_ORDER.map((type) => ({ value: type, label: KIND_LABELS[type] }));

interface RuleFormProps extends Omit<RuleFormModalProps, 'target'> {
  target: RuleFormTarget;
}

function RuleForm({ target, handles, onClose, onSaved }: RuleFormProps) {
  const editing = target.mode === 'edit' ? target.rule : null;
  const [values, setValues] = useState<RuleFormValues>(() =>
    initialValues(editing, target.mode === 'create' ? (target.handle ?? handles[0]) : undefined),
  );
  const [errors, setErrors] = useState<RuleFormErrors>({});
  const createMutation = useCreateAlertRuleMutation();
  const updateMutation = useUpdateAlertRuleMutation();
  const saving = createMutation.isPending || updateMutation.isPending;

  const handleChange = <K extends RuleFormField>(field: K, value: RuleFormValues[K]) => {
    setValues((current) => ({ ...current, [field]: value }));
    // A field's problem goes once it is changed; the form's own stays until the next try.
    setErrors((current) => (current[field] ? { ...current, [field]: undefined } : current));
  };

  const refused = (error: unknown) =>
    setErrors({ form: refusalText(error, ALERT_TEXTS.saveFailed) });

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (saving) return;
    if (editing) {
      const checked = checkUpdate(values);
      if (!checked.ok) return setErrors(checked.errors);
      setErrors({});
      updateMutation.mutate(
        { id: editing.id, changes: checked.body },
        {
          onSuccess: (rule) => {
            onSaved(ALERT_TEXTS.saved(rule.name));
            onClose();
          },
          onError: refused,
        },
      );
      return;
    }
    const checked = checkCreate(values);
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    createMutation.mutate(checked.body, {
      onSuccess: (rule) => {
        onSaved(ALERT_TEXTS.created(rule.name));
        onClose();
      },
      onError: refused,
    });
  };

  return (
    <form onSubmit={handleSubmit} aria-label={ALERT_TEXTS.formLabel} noValidate>
      <Stack gap="md">
        {editing ? null : (
          <NativeSelect
            label={ALERT_TEXTS.handleLabel}
            description={ALERT_TEXTS.handleDescription}
            value={values.handle}
            onChange={(event) => handleChange('handle', event.currentTarget.value)}
            data={handles.map((handle) => ({ value: handle, label: `@${handle}` }))}
            error={errors.handle}
          />
        )}
        <TextInput
          label={ALERT_TEXTS.nameLabel}
          description={ALERT_TEXTS.nameDescription}
          placeholder={ALERT_TEXTS.namePlaceholder}
          value={values.name}
          onChange={(event) => handleChange('name', event.currentTarget.value)}
          maxLength={ALERT_NAME_MAX_LENGTH}
          error={errors.name}
          data-autofocus
        />
        <NativeSelect
          label={ALERT_TEXTS.kindLabel}
          value={values.type}
          onChange={(event) => handleChange('type', event.currentTarget.value as AlertKindType)}
          data={KIND_OPTIONS}
          error={errors.type}
        />
        <KindFields values={values} errors={errors} onChange={handleChange} />
        {errors.form ? (
          <ErrorAlert role="alert" testId="alert-form-error">
            {errors.form}
          </ErrorAlert>
        ) : null}
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onClose}>
            {ALERT_TEXTS.cancel}
          </Button>
          <Button type="submit" loading={saving}>
            {editing ? ALERT_TEXTS.save : ALERT_TEXTS.create}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/**
 * The dialog that creates or edits a rule: handle (new rules only; a rule keeps its handle),
 * name, what it watches and that kind's fields. The request's own rules check the form before
 * anything is sent, and a refusal of the server shows in the form in the server's words.
 */
export function RuleFormModal({ target, handles, onClose, onSaved }: RuleFormModalProps) {
  const phone = usePhoneLayout();
  const title =
    target?.mode === 'edit'
      ? ALERT_TEXTS.formEditTitle(target.rule.handle)
      : ALERT_TEXTS.formCreateTitle;
  return (
    <Modal
      opened={target !== null}
      onClose={onClose}
      title={title}
      size="lg"
      fullScreen={phone}
      centered
    >
      {/* Every opening starts from the rule (or the defaults) afresh. */}
      {target ? (
        <RuleForm
          key={target.mode === 'edit' ? `edit-${target.rule.id}` : `new-${target.handle ?? ''}`}
          target={target}
          handles={handles}
          onClose={onClose}
          onSaved={onSaved}
        />
      ) : null}
    </Modal>
  );
}
