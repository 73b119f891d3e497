import type { Severity } from '@perch/shared';

/** The colour and word of a severity or risk level: critical, high, medium, low. */
export const SEVERITY_LOOK: Record<Severity, { label: string; color: string }> = {
  critical: { label: 'Critical', color: 'red' },
  high: { label: 'High', color: 'orange' },
  medium: { label: 'Medium', color: 'yellow' },
  low: { label: 'Low', color: 'green' },
};
