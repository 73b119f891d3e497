import { Box, Button, Stack, ThemeIcon } from '@mantine/core';
import type { SuspiciousAlert } from '@perch/shared';
import { IconChevronDown, IconChevronUp, IconShieldExclamation } from '@tabler/icons-react';
import { useId, useState } from 'react';
import { useLocation } from 'react-router';
import { usePhoneLayout } from '@/lib/use-phone-layout';
import { useSuspiciousActivityQuery } from '../api/get-suspicious-activity';
import { useDismissedAlerts } from '../hooks/use-dismissed-alerts';
import {
  SECURITY_PAGE_PATH,
  SEVERITY_LOOK,
  alertCountLabel,
  byUrgency,
  topSeverity,
} from '../utils/alert-looks';
import { SecurityAlertCard } from './security-alert-card';

const PANEL_WIDTH = 360;

export interface SecurityAlertPanelProps {
  /** Whose dismissals apply. */
  userId: number;
}

/**
 * The security alert panel (docs/spec-notes.md, Layout): the user's suspicious-activity alerts,
 * refreshed every 60 s. Critical alerts stand out and can be dismissed for good; the others wait
 * behind a count that opens them. Wide screens float it at the top right under the header; phones
 * keep it in the page's flow above the content, so it never covers anything.
 */
export function SecurityAlertPanel({ userId }: SecurityAlertPanelProps) {
  const { data } = useSuspiciousActivityQuery();
  const { dismissedIds, dismiss } = useDismissedAlerts(userId);
  const isPhone = usePhoneLayout();
  const { pathname } = useLocation();
  const [othersOpen, setOthersOpen] = useState(false);
  const othersId = useId();

  const alerts = [...(data?.alerts ?? [])].sort(byUrgency);
  const critical = alerts.filter(
    (alert) => alert.severity === 'critical' && !dismissedIds.includes(alert.id),
  );
  const others = alerts.filter((alert) => alert.severity !== 'critical');
  if (critical.length === 0 && others.length === 0) return null;

  const withReviewLink = pathname !== SECURITY_PAGE_PATH;
  const othersColor = others.length > 0 ? SEVERITY_LOOK[topSeverity(others)].color : undefined;
  const placement = isPhone
    ? { mb: 'md' }
    : {
        pos: 'fixed' as const,
        top: 'calc(var(--app-shell-header-height, 60px) + var(--mantine-spacing-sm))',
        right: 'var(--mantine-spacing-md)',
        w: PANEL_WIDTH,
        maw: 'calc(100vw - 2 * var(--mantine-spacing-md))',
        // Only the cards catch the pointer: the gaps between them leave the page usable.
        style: { zIndex: 'var(--mantine-z-index-app)', pointerEvents: 'none' as const },
      };

  const alertCard = (alert: SuspiciousAlert, onDismiss?: () => void) => (
    <SecurityAlertCard
      key={alert.id}
      alert={alert}
      compact={isPhone}
      withReviewLink={withReviewLink}
      onDismiss={onDismiss}
    />
  );

  return (
    <Box
      component="section"
      aria-label="Security alerts"
      data-testid="security-alerts"
      {...placement}
    >
      <Stack gap="xs" align="flex-end">
        {critical.map((alert) => alertCard(alert, () => dismiss(alert.id)))}
        {others.length > 0 ? (
          <Button
            variant="default"
            size={isPhone ? 'compact-sm' : 'sm'}
            radius="xl"
            leftSection={
              <ThemeIcon color={othersColor} variant="light" size="sm" radius="xl">
                <IconShieldExclamation size={14} />
              </ThemeIcon>
            }
            rightSection={othersOpen ? <IconChevronUp size={14} /> : <IconChevronDown size={14} />}
            aria-expanded={othersOpen}
            aria-controls={othersId}
            onClick={() => setOthersOpen((open) => !open)}
            style={{ pointerEvents: 'auto', boxShadow: 'var(--mantine-shadow-md)' }}
          >
            {alertCountLabel(others.length)}
          </Button>
        ) : null}
        {othersOpen && others.length > 0 ? (
          <Stack id={othersId} gap="xs" w="100%">
            {others.map((alert) => alertCard(alert))}
          </Stack>
        ) : null}
      </Stack>
    </Box>
  );
}
