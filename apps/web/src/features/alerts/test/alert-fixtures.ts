import {
  ALERT_MESSAGES,
  ALERT_RULES_PER_USER,
  type AlertFiring,
  type AlertRule,
  type CreateAlertRuleRequest,
  type Handle,
  type UpdateAlertRuleRequest,
} from '@perch/shared';
import { fail, ok, type StubHandler } from '@/test/fetch-stub';

/** Records and a small stand-in server of the alerts API, for the Alerts page's tests. */

export function makeRule(overrides: Partial<AlertRule> & { id: number }): AlertRule {
  return {
    handle: 'nasa',
    name: `Rule ${overrides.id}`,
    enabled: true,
    kind: { type: 'metric_threshold', metric: 'likes', threshold: 1000, within_hours: 24 },
    created_at: '2025-03-01T00:00:00.000Z',
    updated_at: '2025-03-01T00:00:00.000Z',
    ...overrides,
  };
}

export function makeFiring(overrides: Partial<AlertFiring> & { id: number }): AlertFiring {
  return {
    rule_id: 1,
    rule_name: 'Big post',
    handle: 'nasa',
    kind: { type: 'metric_threshold', metric: 'likes', threshold: 1000, within_hours: 24 },
    tweet_id: `9${overrides.id}`,
    tweet_url: `https://x.com/nasa/status/9${overrides.id}`,
    fired_at: '2025-03-10T11:00:00.000Z',
    numbers: { value: 1250, threshold: 1000 },
    summary: `A post by @nasa reached 1,250 likes within 24 hours (threshold 1,000). #${overrides.id}`,
    ...overrides,
  };
}

export interface AlertServerOptions {
  handles?: Handle[];
  rules?: AlertRule[];
  /** Newest first, as the server keeps them. */
  firings?: AlertFiring[];
  limit?: number;
  /** Answers POST /alerts instead of storing the rule (e.g. a 400). */
  refuseCreate?: StubHandler;
}

/**
 * The API as the page uses it: the handles, the rules (created, changed and deleted in memory,
 * PATCH and DELETE for the ids given and those created) and the firings in pages of `limit`
 * older than `before`, of one `handle` when asked.
 */
export function alertServer({
  handles = [],
  rules: initialRules = [],
  firings = [],
  limit = ALERT_RULES_PER_USER,
  refuseCreate,
}: AlertServerOptions = {}) {
  let rules = [...initialRules];
  let nextId = Math.max(100, ...rules.map((rule) => rule.id + 1));
  const ruleHandlers = (id: number): Record<string, StubHandler> => ({
    [`PATCH /api/v1/alerts/${id}`]: (request) => {
      const rule = rules.find((entry) => entry.id === id);
      if (!rule) return fail(404, ALERT_MESSAGES.notFound, 'NOT_FOUND');
      const changes = request.body as UpdateAlertRuleRequest;
      const updated = { ...rule, ...changes, updated_at: '2025-03-10T12:00:00.000Z' } as AlertRule;
      rules = rules.map((entry) => (entry.id === id ? updated : entry));
      return ok({ rule: updated });
    },
    [`DELETE /api/v1/alerts/${id}`]: () => {
      rules = rules.filter((entry) => entry.id !== id);
      return ok({ deleted: true });
    },
  });
  const handlers: Record<string, StubHandler> = {
    'GET /api/v1/handles': () => ok({ handles }),
    'GET /api/v1/alerts': () => ok({ rules, limit }),
    'POST /api/v1/alerts': (request) => {
      if (refuseCreate) return refuseCreate(request);
      const body = request.body as CreateAlertRuleRequest;
      const rule = makeRule({
        id: nextId++,
        handle: body.handle,
        name: body.name,
        enabled: body.enabled ?? true,
        kind: body.kind as AlertRule['kind'],
      });
      rules = [...rules, rule];
      Object.assign(handlers, ruleHandlers(rule.id));
      return ok({ rule }, 201);
    },
    'GET /api/v1/alerts/firings': ({ query }) => {
      const handle = query.get('handle')?.toLowerCase();
      const before = query.has('before') ? Number(query.get('before')) : Infinity;
      const size = Number(query.get('limit') ?? 50);
      const matching = firings.filter(
        (firing) =>
          firing.id < before && (handle === undefined || firing.handle.toLowerCase() === handle),
      );
      const page = matching.slice(0, size);
      const more = matching.length > size;
      return ok({ firings: page, next_before: more ? (page.at(-1)?.id ?? null) : null });
    },
    ...Object.assign({}, ...initialRules.map((rule) => ruleHandlers(rule.id))),
  };
  return { handlers, rules: () => rules };
}
