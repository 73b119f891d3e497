/**
 * The fake X API itself, over raw HTTP: the source tests rely on it answering as X does (shapes,
 * headers, limits) and on its bill matching X's (each post and user once per UTC day).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeXServer, type FakeXServer, type FakeXServerOptions } from './fake-x-server.js';

let fake: FakeXServer;
let clock = Date.parse('2026-03-01T23:50:00.000Z');

async function start(options: FakeXServerOptions = {}): Promise<FakeXServer> {
  clock = Date.parse('2026-03-01T23:50:00.000Z');
  fake = await startFakeXServer({ now: () => clock, ...options });
  return fake;
}
afterEach(() => fake?.close());

/** The value at a path of a JSON body (undefined when absent): the tests check it by value. */
function at(value: unknown, ...path: (string | number)[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

async function get(path: string, signal?: AbortSignal) {
  const response = await fetch(fake.baseUrl + path, {
    headers: { authorization: `Bearer ${fake.bearerToken}` },
    signal,
  });
  const text = await response.text();
  const body: unknown = text ? JSON.parse(text) : null;
  return { status: response.status, headers: response.headers, body };
}

const id = (n: number) => String(1_800_000_000_000_000_000n + BigInt(n));
const LONG = 'word '.repeat(80) + '#Late';

/** A user with `count` plain posts, one a minute, newest last. */
function seed(username: string, count: number) {
  const user = fake.addUser({ username });
  fake.addTweets(
    user.id,
    Array.from({ length: count }, (_, n) => ({
      id: id(n + 1),
      text: `post ${n + 1}`,
      created_at: new Date(Date.UTC(2026, 1, 1) + n * 60_000).toISOString(),
    })),
  );
  return user;
}

describe('fake X: users by id', () => {
  it('returns found users in data and the others in errors, as X words them', async () => {
    await start();
    const alice = fake.addUser({ username: 'alice', protected: true });
    const gone = fake.addUser({ username: 'gone', suspended: true });
    const { status, body } = await get(
      `/2/users?ids=${alice.id},${gone.id},42&user.fields=protected`,
    );
    expect(status).toBe(200);
    expect(at(body, 'data')).toEqual([
      { id: alice.id, name: 'alice', username: 'alice', protected: true },
    ]);
    expect(at(body, 'errors')).toEqual([
      {
        value: gone.id,
        detail: `User has been suspended: [${gone.id}].`,
        title: 'Forbidden',
        resource_type: 'user',
        parameter: 'ids',
        resource_id: gone.id,
        type: 'https://api.twitter.com/2/problems/resource-not-found',
      },
      {
        value: '42',
        detail: 'Could not find user with ids: [42].',
        title: 'Not Found Error',
        resource_type: 'user',
        parameter: 'ids',
        resource_id: '42',
        type: 'https://api.twitter.com/2/problems/resource-not-found',
      },
    ]);
  });

  it('refuses more than 100 ids, or none, with invalid-request', async () => {
    await start();
    const ids = Array.from({ length: 101 }, (_, n) => String(n + 1)).join(',');
    for (const path of [`/2/users?ids=${ids}`, '/2/users', '/2/users?ids=12,abc']) {
      const { status, body } = await get(path);
      expect(status, path).toBe(400);
      expect(at(body, 'type')).toBe('https://api.twitter.com/2/problems/invalid-request');
    }
  });

  it('has its own budget of 300 per 15 minutes', async () => {
    await start();
    const { headers } = await get('/2/users?ids=1');
    expect(headers.get('x-rate-limit-limit')).toBe('300');
    expect(headers.get('x-rate-limit-remaining')).toBe('299');
    expect(fake.requestCounts()).toEqual({
      'users/by/username': 0,
      users: 1,
      'users/tweets': 0,
      tweets: 0,
    });
  });

  it('renames a user: the old name is gone, the id shows the new one', async () => {
    await start();
    const user = fake.addUser({ username: 'OldName' });
    fake.renameUser(user.id, 'NewName');
    expect(at((await get('/2/users/by/username/OldName')).body, 'errors', 0, 'detail')).toBe(
      'Could not find user with username: [OldName].',
    );
    expect(at((await get('/2/users/by/username/newname')).body, 'data', 'id')).toBe(user.id);
    expect(at((await get(`/2/users?ids=${user.id}`)).body, 'data', 0, 'username')).toBe('NewName');
  });
});

describe('fake X: long posts and retweets', () => {
  it('truncates a long post and sends its note only when asked', async () => {
    await start();
    const user = fake.addUser({ username: 'writer' });
    const late = [...LONG].length - 5;
    fake.addTweets(user.id, [
      {
        id: id(1),
        text: '',
        created_at: '2026-02-01T00:00:00.000Z',
        note_tweet: {
          text: LONG,
          entities: {
            hashtags: [
              { start: 0, end: 5, tag: 'word' },
              { start: late, end: late + 5, tag: 'Late' },
            ],
          },
        },
      },
    ]);
    const plain = at((await get(`/2/tweets?ids=${id(1)}&tweet.fields=entities`)).body, 'data', 0);
    expect(at(plain, 'note_tweet')).toBeUndefined();
    expect(at(plain, 'text')).toMatch(/^word word .*… https:\/\/t\.co\/\w+$/);
    expect([...String(at(plain, 'text')).split('…')[0]!].length).toBeLessThanOrEqual(280);
    // The visible text's entities only.
    expect(at(plain, 'entities')).toEqual({ hashtags: [{ start: 0, end: 5, tag: 'word' }] });
    const full = at((await get(`/2/tweets?ids=${id(1)}&tweet.fields=note_tweet`)).body, 'data', 0);
    expect(at(full, 'note_tweet', 'text')).toBe(LONG);
    expect(at(full, 'note_tweet', 'entities', 'hashtags')).toHaveLength(2);
  });

  it('writes a retweet truncated and includes the shared post and its author when asked', async () => {
    await start();
    const author = fake.addUser({ username: 'author' });
    const fan = fake.addUser({ username: 'fan' });
    fake.addTweets(author.id, [
      { id: id(1), text: 'x'.repeat(200), created_at: '2026-02-01T00:00:00.000Z' },
    ]);
    const retweet = fake.addRetweet(fan.id, {
      id: id(2),
      created_at: '2026-02-02T00:00:00.000Z',
      of: id(1),
    });
    expect(retweet.text).toBe(`RT @author: ${'x'.repeat(139 - 12)}…`);
    expect([...retweet.text]).toHaveLength(140);

    const bare = await get(`/2/users/${fan.id}/tweets?max_results=5`);
    expect(at(bare.body, 'includes')).toBeUndefined();
    const expanded = await get(
      `/2/users/${fan.id}/tweets?max_results=5&tweet.fields=author_id,referenced_tweets` +
        '&expansions=referenced_tweets.id,referenced_tweets.id.author_id',
    );
    expect(at(expanded.body, 'data', 0)).toMatchObject({
      id: id(2),
      author_id: fan.id,
      referenced_tweets: [{ type: 'retweeted', id: id(1) }],
    });
    expect(at(expanded.body, 'includes')).toEqual({
      tweets: [
        {
          id: id(1),
          text: 'x'.repeat(200),
          edit_history_tweet_ids: [id(1)],
          author_id: author.id,
        },
      ],
      users: [{ id: author.id, name: 'author', username: 'author' }],
    });
  });
});

describe('fake X: billing and credits', () => {
  it('bills each post and user once per UTC day, includes too', async () => {
    await start();
    const author = seed('author', 3);
    const fan = fake.addUser({ username: 'fan' });
    fake.addRetweet(fan.id, { id: id(10), created_at: '2026-02-02T00:00:00.000Z', of: id(1) });
    const expand = 'expansions=referenced_tweets.id,referenced_tweets.id.author_id';

    await get(`/2/users/${fan.id}/tweets?max_results=5&${expand}`);
    // The retweet, the shared post and its author.
    expect(fake.requests.at(-1)!.billed).toEqual({ posts: 2, users: 1 });
    await get(`/2/users/${author.id}/tweets?max_results=5`);
    expect(fake.requests.at(-1)!.billed).toEqual({ posts: 2, users: 0 });
    await get(`/2/users?ids=${author.id},${fan.id}`);
    await get('/2/users/by/username/author');
    expect(fake.billing()).toEqual({
      posts: 4,
      users: 2,
      byDay: { '2026-03-01': { posts: 4, users: 2 } },
    });

    // A new UTC day bills again.
    clock += 15 * 60_000;
    await get(`/2/tweets?ids=${id(1)},${id(2)}`);
    expect(fake.billing()).toEqual({
      posts: 6,
      users: 2,
      byDay: { '2026-03-01': { posts: 4, users: 2 }, '2026-03-02': { posts: 2, users: 0 } },
    });
    // Errors and empty pages are free.
    await get('/2/users?ids=999');
    await get(`/2/users/${author.id}/tweets?max_results=5&since_id=${id(3)}`);
    expect(fake.billing().posts).toBe(6);
    expect(fake.billing().users).toBe(2);
  });

  it('answers 402 CreditsDepleted once the balance is spent, until credits are added', async () => {
    await start({ credits: 0.012 });
    const user = seed('spender', 3);
    expect((await get(`/2/users/${user.id}/tweets?max_results=5`)).status).toBe(200);
    expect(fake.credits()).toBe(0);
    for (const path of [`/2/users/${user.id}/tweets?max_results=5`, '/2/users?ids=1']) {
      const { status, body, headers } = await get(path);
      expect(status).toBe(402);
      expect(headers.get('content-type')).toBe('application/problem+json');
      expect(body).toEqual({
        account_id: '1243608864848629761',
        title: 'CreditsDepleted',
        detail:
          'Your enrolled account [1243608864848629761] does not have any credits to fulfill this request.',
        type: 'https://api.twitter.com/2/problems/credits',
      });
    }
    fake.setCredits(1);
    expect((await get('/2/users/by/username/spender')).status).toBe(200);
    expect(fake.credits()).toBeCloseTo(0.99, 6);
  });

  it('refuses the token with the status set, until cleared', async () => {
    await start();
    fake.setAuthFailure(403);
    expect((await get('/2/users?ids=1')).status).toBe(403);
    fake.setAuthFailure(401);
    expect((await get('/2/users?ids=1')).body).toMatchObject({ title: 'Unauthorized' });
    fake.setAuthFailure(null);
    expect((await get('/2/users?ids=1')).status).toBe(200);
  });
});

describe('fake X: limits', () => {
  it('ends pagination at the 3,200th most recent post', async () => {
    await start();
    const user = seed('deep', 3_250);
    let token: string | undefined;
    let seen = 0;
    let pages = 0;
    do {
      const query = `max_results=100${token ? `&pagination_token=${token}` : ''}`;
      const { body } = await get(`/2/users/${user.id}/tweets?${query}`);
      seen += Number(at(body, 'meta', 'result_count'));
      const next = at(body, 'meta', 'next_token');
      token = typeof next === 'string' ? next : undefined;
      pages += 1;
    } while (token);
    expect(seen).toBe(3_200);
    expect(pages).toBe(32);
    // Asking below the depth gives an empty page.
    const below = await get(
      `/2/users/${user.id}/tweets?max_results=5&end_time=2026-02-01T00:30:00Z`,
    );
    expect(below.body).toEqual({ meta: { result_count: 0 } });
  });

  it('can answer a 429 without rate-limit headers, and with the v1.1 body', async () => {
    await start();
    const v1 = { errors: [{ code: 88, message: 'Rate limit exceeded' }] };
    fake.failNext('users', 429, 1, { rateLimitHeaders: false, body: v1 });
    const { status, headers, body } = await get('/2/users?ids=1');
    expect(status).toBe(429);
    expect(headers.get('x-rate-limit-reset')).toBeNull();
    expect(body).toEqual(v1);
    expect((await get('/2/users?ids=1')).headers.get('x-rate-limit-reset')).not.toBeNull();
  });

  it('tells and enforces the app’s 24-hour limit when configured', async () => {
    await start({ appDayLimit: 2 });
    const first = await get('/2/users?ids=1');
    expect(first.headers.get('x-app-limit-24hour-limit')).toBe('2');
    expect(first.headers.get('x-app-limit-24hour-remaining')).toBe('1');
    const reset = Number(first.headers.get('x-app-limit-24hour-reset'));
    expect(reset * 1000 - clock).toBeGreaterThan(86_399_000);
    await get('/2/users/by/username/nobody');
    const refused = await get('/2/tweets?ids=1');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-app-limit-24hour-remaining')).toBe('0');
    // The endpoint's own window still had room.
    expect(Number(refused.headers.get('x-rate-limit-remaining'))).toBeGreaterThan(0);
    clock = reset * 1000;
    expect((await get('/2/tweets?ids=1')).status).toBe(200);
    fake.setAppDayLimit(null);
    expect((await get('/2/tweets?ids=1')).headers.get('x-app-limit-24hour-limit')).toBeNull();
  });
});

describe('fake X: stalls', () => {
  it('accepts a request and answers only after the delay', async () => {
    await start();
    fake.addUser({ username: 'slow' });
    fake.stallNext('users/by/username', { ms: 150 });
    const started = Date.now();
    const { status } = await get('/2/users/by/username/slow');
    expect(status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(fake.requests[0]!.status).toBe(200);
    expect(fake.requests[0]!.billed.users).toBe(1);
  });

  it('never answers, or never ends the body, until the client gives up', async () => {
    await start();
    const user = seed('stuck', 3);
    fake.stallNext('users/tweets');
    await expect(
      get(`/2/users/${user.id}/tweets?max_results=5`, AbortSignal.timeout(150)),
    ).rejects.toThrow();
    expect(fake.requests[0]!.status).toBe(0);

    fake.stallNext('users/tweets', { phase: 'body' });
    const response = await fetch(`${fake.baseUrl}/2/users/${user.id}/tweets?max_results=5`, {
      headers: { authorization: `Bearer ${fake.bearerToken}` },
      signal: AbortSignal.timeout(300),
    });
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
    expect(fake.billing().posts).toBe(0);
    // The next request is answered normally.
    expect(at((await get(`/2/users/${user.id}/tweets?max_results=5`)).body, 'data')).toHaveLength(
      3,
    );
  });
});
