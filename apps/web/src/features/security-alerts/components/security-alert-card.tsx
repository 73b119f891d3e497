import { Alert, Anchor, Group, Paper, Text } from '@mantine/core';
import type { SuspiciousAlert } from '@perch/shared';
import { IconAlertTriangle, IconShieldExclamation } from '@tabler/icons-react';
import { Link } from 'react-router';
import { formatDateTime } from '@/lib/format';
import { ALERT_TITLES, SECURITY_PAGE_PATH, SEVERITY_LOOK } from '../utils/alert-looks';

export interface SecurityAlertCardProps {
  alert: SuspiciousAlert;
  /** Tighter spacing, for phones. */
  compact: boolean;
  /** Leaves out the link when the Security Dashboard is already open. */
  withReviewLink: boolean;
  /** Given for alerts that may be dismissed (critical ones). */
  onDismiss?: () => void;
}

/** One suspicious-activity alert in its severity's colour, with the way to review it. */
export function SecurityAlertCard({
  alert,
  compact,
  withReviewLink,
  onDismiss,
}: SecurityAlertCardProps) {
  const look = SEVERITY_LOOK[alert.severity];
  const Icon = alert.severity === 'critical' ? IconAlertTriangle : IconShieldExclamation;
  return (
    // The alert's tint is translucent: the paper underneath keeps the page from showing through.
    <Paper shadow="md" radius="md" w="100%" style={{ pointerEvents: 'auto' }}>
      <Alert
        data-testid="security-alert"
        data-severity={alert.severity}
        color={look.color}
        variant="light"
        radius="md"
        p={compact ? 'xs' : 'sm'}
        icon={<Icon size={compact ? 16 : 20} />}
        title={`${look.label}: ${ALERT_TITLES[alert.type]}`}
        withCloseButton={Boolean(onDismiss)}
        closeButtonLabel="Dismiss alert"
        onClose={onDismiss}
        styles={{ title: { marginBottom: compact ? 2 : 4 } }}
      >
        <Text size={compact ? 'xs' : 'sm'}>{alert.message}</Text>
        <Group justify="space-between" gap="xs" mt={compact ? 4 : 6} wrap="nowrap">
          <Text size="xs" opacity={0.75}>
            {formatDateTime(alert.timestamp)}
          </Text>
          {withReviewLink ? (
            // White on every severity's tint; the underline says it is a link.
            <Anchor
              component={Link}
              to={SECURITY_PAGE_PATH}
              size="xs"
              fw={600}
              c="bright"
              underline="always"
            >
              Review security
            </Anchor>
          ) : null}
        </Group>
      </Alert>
    </Paper>
  );
}
