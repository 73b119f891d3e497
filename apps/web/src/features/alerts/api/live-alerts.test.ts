import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { alertKeys } from './alert-keys';
import { applyAlertEvents } from './live-alerts';

describe('applyAlertEvents', () => {
  it('has the alert history read again when one of the rules fired, and nothing else', () => {
    const queryClient = new QueryClient();
    const history = alertKeys.firingPages(null, 50);
    const rules = alertKeys.rules;
    queryClient.setQueryData(history, { firings: [] });
    queryClient.setQueryData(rules, { rules: [] });
    const source = new EventTarget() as EventSource;
    applyAlertEvents(source, queryClient);

    source.dispatchEvent(new MessageEvent('tweet.new', { data: '{}' }));
    expect(queryClient.getQueryState(history)?.isInvalidated).toBe(false);

    source.dispatchEvent(
      new MessageEvent('alert.fired', { data: '{"handleId":1,"userId":7,"firingId":3}' }),
    );
    expect(queryClient.getQueryState(history)?.isInvalidated).toBe(true);
    expect(queryClient.getQueryState(rules)?.isInvalidated).toBe(false);
  });
});
