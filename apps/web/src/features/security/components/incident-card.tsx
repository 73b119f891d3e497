import { Button, Group, NativeSelect, SimpleGrid, Stack, Textarea } from '@mantine/core';
import { SECURITY_MESSAGES, SEVERITIES, incidentRequestSchema, type Severity } from '@perch/shared';
import { IconSend } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { useReportIncidentMutation } from '../api/report-incident';
import { useOutcome } from '../hooks/use-outcome';
import { SEVERITY_LOOK } from '../utils/looks';
import { SECURITY_TEXTS } from '../utils/security-texts';
import { SecuritySection } from './security-section';

const DESCRIPTION_MAX = 2000;
const DEFAULT_TYPE = SECURITY_TEXTS.incidentTypes[0].value;

/** Tells the administrators something looks wrong: what, how serious, and in the person's words. */
export function IncidentCard() {
  const reportMutation = useReportIncidentMutation();
  const outcome = useOutcome();
  const [type, setType] = useState<string>(DEFAULT_TYPE);
  const [severity, setSeverity] = useState<Severity>('medium');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<string | null>(null);

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parsed = incidentRequestSchema.safeParse({ type, severity, description });
    if (!parsed.success) {
      setError(SECURITY_MESSAGES.incidentDescriptionRequired);
      return;
    }
    setError(null);
    outcome.dismiss();
    reportMutation.mutate(parsed.data, {
      onSuccess: ({ data, message }) => {
        setDescription('');
        setType(DEFAULT_TYPE);
        setSeverity('medium');
        outcome.success(
          `${message ?? SECURITY_MESSAGES.incidentReported} ${SECURITY_TEXTS.incidentReference(data.id)}`,
        );
      },
      onError: (failure) => outcome.failed(SECURITY_TEXTS.reportFailed, failure),
    });
  };

  return (
    <SecuritySection section="incident" outcome={outcome}>
      <form onSubmit={handleSubmit} aria-label={SECURITY_TEXTS.incidentTitle} noValidate>
        <Stack gap="sm">
          <SimpleGrid type="container" cols={{ base: 1, '420px': 2 }} spacing="sm">
            <NativeSelect
              label={SECURITY_TEXTS.incidentTypeLabel}
              value={type}
              onChange={(event) => setType(event.currentTarget.value)}
              data={SECURITY_TEXTS.incidentTypes.map((entry) => ({ ...entry }))}
            />
            <NativeSelect
              label={SECURITY_TEXTS.incidentSeverityLabel}
              value={severity}
              onChange={(event) => setSeverity(event.currentTarget.value as Severity)}
              data={SEVERITIES.map((value) => ({ value, label: SEVERITY_LOOK[value].label }))}
            />
          </SimpleGrid>
          <Textarea
            label={SECURITY_TEXTS.incidentDetailsLabel}
            placeholder={SECURITY_TEXTS.incidentDetailsPlaceholder}
            value={description}
            onChange={(event) => {
              setDescription(event.currentTarget.value);
              setError(null);
            }}
            rows={4}
            maxLength={DESCRIPTION_MAX}
            description={`${description.length}/${DESCRIPTION_MAX}`}
            inputWrapperOrder={['label', 'input', 'description', 'error']}
            error={error}
          />
          <Group justify="flex-end">
            <Button
              type="submit"
              color="red"
              variant="light"
              leftSection={<IconSend size={16} />}
              loading={reportMutation.isPending}
            >
              {SECURITY_TEXTS.sendReport}
            </Button>
          </Group>
        </Stack>
      </form>
    </SecuritySection>
  );
}
