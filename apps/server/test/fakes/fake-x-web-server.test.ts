/**
 * The fake of X's web API itself answers as X does (so the source's tests mean something):
 * the web bearer and the session cookies with ct0 echoed, the features, the sign-in steps in
 * order, the limits per account and operation.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { X_WEB_BEARER, X_WEB_FEATURES } from '../../src/collector/sources/x-web/x-web-http.js';
import { startFakeXWebServer, type FakeXWebServer } from './fake-x-web-server.js';

let fake: FakeXWebServer;
beforeEach(async () => {
  fake = await startFakeXWebServer();
  fake.addUser({ username: 'nasa', id: '11348282' });
  fake.addAccount({ username: 'reader', password: 'pw', email: 'r@example.com' });
});
afterEach(() => fake.close());

function lookup(
  headers: Record<string, string>,
  features: Record<string, boolean> = X_WEB_FEATURES,
) {
  const url = new URL(`${fake.baseUrl}/i/api/graphql/any-id/UserByScreenName`);
  url.searchParams.set('variables', JSON.stringify({ screen_name: 'nasa' }));
  url.searchParams.set('features', JSON.stringify(features));
  return fetch(url, { headers });
}

function signedIn() {
  const { authToken, ct0 } = fake.issueSession('reader');
  return {
    authorization: `Bearer ${X_WEB_BEARER}`,
    cookie: `auth_token=${authToken}; ct0=${ct0}`,
    'x-csrf-token': ct0,
  };
}

describe('fake X web API', () => {
  it('answers a signed-in lookup with the user and the limit headers of that account', async () => {
    const response = await lookup(signedIn());
    expect(response.status).toBe(200);
    expect(response.headers.get('x-rate-limit-limit')).toBe('95');
    expect(response.headers.get('x-rate-limit-remaining')).toBe('94');
    const body = (await response.json()) as { data: { user: { result: { rest_id: string } } } };
    expect(body.data.user.result.rest_id).toBe('11348282');
  });

  it('refuses what X refuses: no session (32), ct0 not echoed (353), features missing (336)', async () => {
    const session = signedIn();
    const noSession = await lookup({ authorization: session.authorization });
    expect(noSession.status).toBe(401);
    expect(await noSession.json()).toMatchObject({ errors: [{ code: 32 }] });
    const noCsrf = await lookup({ authorization: session.authorization, cookie: session.cookie });
    expect(noCsrf.status).toBe(403);
    expect(await noCsrf.json()).toMatchObject({ errors: [{ code: 353 }] });
    const noFeatures = await lookup(session, {});
    expect(noFeatures.status).toBe(400);
    expect(await noFeatures.json()).toMatchObject({ errors: [{ code: 336 }] });
  });

  it('spends limits per account and answers 429 with code 88 once spent', async () => {
    fake.setLimit('UserByScreenName', 1);
    const session = signedIn();
    expect((await lookup(session)).status).toBe(200);
    const spent = await lookup(session);
    expect(spent.status).toBe(429);
    expect(spent.headers.get('x-rate-limit-remaining')).toBe('0');
    expect(await spent.json()).toMatchObject({ errors: [{ code: 88 }] });
    fake.addAccount({ username: 'other', password: 'pw', email: 'o@example.com' });
    const other = fake.issueSession('other');
    const fresh = await lookup({
      authorization: `Bearer ${X_WEB_BEARER}`,
      cookie: `auth_token=${other.authToken}; ct0=${other.ct0}`,
      'x-csrf-token': other.ct0,
    });
    expect(fresh.status).toBe(200);
  });

  it('runs the sign-in steps in order and refuses a step out of order (366)', async () => {
    const post = (path: string, body: unknown, guest?: string) =>
      fetch(`${fake.baseUrl}${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${X_WEB_BEARER}`,
          'content-type': 'application/json',
          ...(guest ? { 'x-guest-token': guest } : {}),
        },
        body: JSON.stringify(body),
      });
    const refused = await fetch(`${fake.baseUrl}/1.1/guest/activate.json`, { method: 'POST' });
    expect(refused.status).toBe(403);
    const guest = (
      (await (await post('/1.1/guest/activate.json', {})).json()) as {
        guest_token: string;
      }
    ).guest_token;
    const begun = (await (
      await post('/1.1/onboarding/task.json?flow_name=login', {}, guest)
    ).json()) as {
      flow_token: string;
      subtasks: { subtask_id: string }[];
    };
    expect(begun.subtasks[0]?.subtask_id).toBe('LoginJsInstrumentationSubtask');
    const skipped = await post(
      '/1.1/onboarding/task.json',
      { flow_token: begun.flow_token, subtask_inputs: [{ subtask_id: 'LoginEnterPassword' }] },
      guest,
    );
    expect(skipped.status).toBe(400);
    expect(await skipped.json()).toMatchObject({ errors: [{ code: 366 }] });
  });
});
