import type { ReactNode } from 'react';
import { IconSection } from '@/components/icon-section';
import { QueryStates, type QueryStatesProps } from '@/components/section-states';
import type { AdminSection } from './admin-sections';

interface AdminQuerySectionProps {
  section: AdminSection;
  query: QueryStatesProps['query'];
  /** Replaces the section's own title (one that counts what arrived). */
  title?: string;
  actions?: ReactNode;
  /** What stands above the loading, error and empty states (a form, a banner). */
  lead?: ReactNode;
  children?: ReactNode;
}

/** A dashboard section whose content is one query: its heading, the query's states, the data. */
export function AdminQuerySection({
  section: { frame, states },
  query,
  title = frame.title,
  actions,
  lead,
  children,
}: AdminQuerySectionProps) {
  return (
    <IconSection {...frame} title={title} actions={actions}>
      {lead}
      <QueryStates query={query} {...states} />
      {children}
    </IconSection>
  );
}
