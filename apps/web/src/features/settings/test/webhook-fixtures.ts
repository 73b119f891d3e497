import {
  DEFAULT_NOTIFICATION_PREFERENCES,
  WEBHOOK_API_MESSAGES,
  WEBHOOKS_PER_USER,
  type Handle,
  type NotificationPreferences,
  type WebhookEndpoint,
  type WebhookEndpointInput,
  type WebhookTestResult,
} from '@perch/shared';
import { fail, ok, type StubHandler, type StubRequest } from '@/test/fetch-stub';

let nextEndpointId = 1;

/** An endpoint as GET /webhooks answers it. */
export function makeEndpoint(overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint {
  const id = overrides.id ?? nextEndpointId++;
  return {
    id,
    name: `Endpoint ${id}`,
    url: `https://hooks.example.com/perch/${id}`,
    preset: 'generic',
    created_at: '2025-03-10T12:00:00.000Z',
    stopped_reason: null,
    ...overrides,
  };
}

/** What POST /webhooks/{id}/test answers, by default a 204 in 85 ms. */
export function testResult(overrides: Partial<WebhookTestResult> = {}): WebhookTestResult {
  return {
    ok: true,
    status: 204,
    duration_ms: 85,
    message: 'Answered 204 in 85 ms.',
    ...overrides,
  };
}

export interface WebhooksServerOptions {
  endpoints?: WebhookEndpoint[];
  handles?: Handle[];
  preferences?: NotificationPreferences;
  limit?: number;
}

/** The ids a test's endpoints and handles may have, so each gets its routes up front. */
const ROUTED_IDS = 40;

/**
 * The webhook routes over a little state, as the server behaves: endpoints with their limit,
 * secrets that change on rotation, handles with their webhook switch (refused without an
 * endpoint), and the notification preferences. Spread its handlers over settingsServer's.
 */
export function webhooksServer(options: WebhooksServerOptions = {}) {
  const state = {
    endpoints: [...(options.endpoints ?? [])],
    handles: [...(options.handles ?? [])],
    preferences: { ...(options.preferences ?? DEFAULT_NOTIFICATION_PREFERENCES) },
    limit: options.limit ?? WEBHOOKS_PER_USER,
    secrets: 0,
    tests: [] as number[],
  };
  const newSecret = () => `whsec_test_secret_${++state.secrets}`;
  const find = (id: number) => state.endpoints.find((entry) => entry.id === id);
  const notFound = () => fail(404, WEBHOOK_API_MESSAGES.notFound, 'NOT_FOUND');

  const handlers: Record<string, StubHandler> = {
    'GET /api/v1/webhooks': () => ok({ endpoints: state.endpoints, limit: state.limit }),
    'POST /api/v1/webhooks': (request: StubRequest) => {
      if (state.endpoints.length >= state.limit) {
        return fail(409, WEBHOOK_API_MESSAGES.limitReached, 'WEBHOOK_LIMIT');
      }
      const body = request.body as WebhookEndpointInput;
      const endpoint = makeEndpoint({ ...body, created_at: '2025-03-11T09:30:00.000Z' });
      state.endpoints.push(endpoint);
      return ok({ endpoint, secret: newSecret() }, 201);
    },
    'GET /api/v1/handles': () => ok({ handles: state.handles }),
    'GET /api/v1/settings/notifications': () => ok({ preferences: state.preferences }),
    'PUT /api/v1/settings/notifications': (request) => {
      state.preferences = { ...state.preferences, ...(request.body as NotificationPreferences) };
      return ok({ preferences: state.preferences });
    },
  };

  for (let id = 1; id <= ROUTED_IDS; id += 1) {
    const base = `/api/v1/webhooks/${id}`;
    handlers[`PATCH ${base}`] = (request) => {
      const endpoint = find(id);
      if (!endpoint) return notFound();
      const changes = request.body as Partial<WebhookEndpointInput>;
      const updated = {
        ...endpoint,
        ...changes,
        // A new address restarts a stopped endpoint.
        stopped_reason:
          changes.url && changes.url !== endpoint.url ? null : endpoint.stopped_reason,
      };
      state.endpoints = state.endpoints.map((entry) => (entry.id === id ? updated : entry));
      return ok({ endpoint: updated });
    };
    handlers[`DELETE ${base}`] = () => {
      if (!find(id)) return notFound();
      state.endpoints = state.endpoints.filter((entry) => entry.id !== id);
      return ok({ deleted: true });
    };
    handlers[`POST ${base}/test`] = () => {
      if (!find(id)) return notFound();
      state.tests.push(id);
      return ok(testResult());
    };
    handlers[`POST ${base}/rotate-secret`] = () => {
      const endpoint = find(id);
      return endpoint ? ok({ endpoint, secret: newSecret() }) : notFound();
    };
    handlers[`PUT /api/v1/handles/${id}/notifications`] = (request) => {
      const handle = state.handles.find((entry) => entry.id === id);
      if (!handle) return fail(404, 'Handle not found', 'NOT_FOUND');
      const { webhookEnabled } = request.body as { webhookEnabled?: boolean };
      if (webhookEnabled && state.endpoints.length === 0) {
        return fail(400, WEBHOOK_API_MESSAGES.addWebhookFirst, 'VALIDATION_ERROR');
      }
      const updated = { ...handle, webhook_enabled: webhookEnabled ?? handle.webhook_enabled };
      state.handles = state.handles.map((entry) => (entry.id === id ? updated : entry));
      return ok({ handle: updated });
    };
  }

  return { handlers, state };
}
