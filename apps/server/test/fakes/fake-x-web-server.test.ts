/**
 * The fake of X's web API itself answers as X does in late 2026 (so the source's tests mean
 * something): transaction ids made from the page it serves (checked with an independent
 * generator: the x-client-transaction-id library, as a client would use it), query ids and
 * feature switches from its bundle, Cloudflare's pages, the 2026 user shape, the timelines and
 * their quirks, the web bearer and the session cookies with ct0 echoed, the sign-in steps in
 * order, the limits per account and operation.
 */
import type { XWebOperation } from '@perch/shared';
import { parseHTML } from 'linkedom';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClientTransaction } from 'x-client-transaction-id';
import type { SourceTweet } from '../../src/domain/tweet-source.js';
import { X_WEB_BEARER } from '../../src/sources/x-web/x-web-http.js';
import { X_WEB_DEFAULT_OPERATIONS } from '../../src/sources/x-web/x-web-operation-defaults.js';
import { makeTweet } from '../source-tweets.js';
import { startFakeXWebServer, type FakeXWebServer } from './fake-x-web-server.js';

// Node 20 has no ArrayBuffer.prototype.transfer, which the library's base64 codec calls.
if (!('transfer' in ArrayBuffer.prototype)) {
  Object.defineProperty(ArrayBuffer.prototype, 'transfer', {
    configurable: true,
    writable: true,
    value(this: ArrayBuffer, length = this.byteLength) {
      const copy = new ArrayBuffer(length);
      new Uint8Array(copy).set(new Uint8Array(this, 0, Math.min(length, this.byteLength)));
      return copy;
    },
  });
}

const NASA_ID = '11348282';
const INDICES = /\(\w\[(\d{1,2})\],\s*16\)/g;

let fake: FakeXWebServer;
beforeEach(async () => {
  fake = await startFakeXWebServer();
  fake.addUser({ username: 'nasa', id: NASA_ID, followersCount: 90_000_000, tweetCount: 70_000 });
  fake.addAccount({ username: 'reader', password: 'pw', email: 'r@example.com' });
});
afterEach(() => fake.close());

// ------------------------------------------------------------------ a client, written apart

interface WebClient {
  html: string;
  bundle: string;
  /** Operation -> query id and feature switches, read from the bundle as a resolver does. */
  operations: Map<string, { queryId: string; featureSwitches: string[] }>;
  switchValues: Record<string, boolean>;
  transactionId(method: string, path: string): Promise<string>;
}

const text = async (url: string) => {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  return response.text();
};

/** Reads the page, the main bundle and the signing chunk, and makes ids with the library. */
async function loadWebClient(): Promise<WebClient> {
  const html = await text(`${fake.baseUrl}/home`);
  const mainUrl = /<script type="module" src="([^"]+)"/.exec(html)![1]!;
  const bundle = await text(mainUrl);
  const signRef = /import\("(\.\/sign\.o-[\w-]+\.js)"\)/.exec(bundle)![1]!;
  const indices = [...(await text(new URL(signRef, mainUrl).href)).matchAll(INDICES)].map((match) =>
    Number(match[1]),
  );
  const document = parseHTML(html).document;
  const ct = new ClientTransaction(
    document as unknown as ConstructorParameters<typeof ClientTransaction>[0],
  );
  // The library looks for the signing chunk on abs.twimg.com only: hand it the indices.
  (ct as unknown as { getIndices: () => Promise<[number, number[]]> }).getIndices = async () => [
    indices[0]!,
    indices.slice(1),
  ];
  await ct.initialize();
  const operations = new Map<string, { queryId: string; featureSwitches: string[] }>();
  const list = (names: string) => [...names.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
  for (const m of bundle.matchAll(
    /params:\{id:"([^"]+)",metadata:\{featureSwitches:\[([^\]]*)\][^}]*\},name:"([^"]+)"/g,
  )) {
    operations.set(m[3]!, { queryId: m[1]!, featureSwitches: list(m[2]!) });
  }
  for (const m of bundle.matchAll(
    /queryId:"([^"]+)",operationName:"([^"]+)".*?featureSwitches:\[([^\]]*)\]/g,
  )) {
    operations.set(m[2]!, { queryId: m[1]!, featureSwitches: list(m[3]!) });
  }
  const state = /window\.__INITIAL_STATE__=(\{.*?\})<\/script>/.exec(html)![1]!;
  const config = (
    JSON.parse(state) as {
      featureSwitch: { defaultConfig: Record<string, { value: boolean }> };
    }
  ).featureSwitch.defaultConfig;
  const switchValues = Object.fromEntries(
    Object.entries(config).map(([name, entry]) => [name, entry.value]),
  );
  return {
    html,
    bundle,
    operations,
    switchValues,
    transactionId: (method, path) => ct.generateTransactionId(method, path),
  };
}

function signedIn(username = 'reader') {
  const { authToken, ct0 } = fake.issueSession(username);
  return {
    authorization: `Bearer ${X_WEB_BEARER}`,
    cookie: `auth_token=${authToken}; ct0=${ct0}`,
    'x-csrf-token': ct0,
  };
}

interface CallOptions {
  headers?: Record<string, string>;
  /** The id to send; by default one made by `client` for the request. */
  transactionId?: string | null;
  queryId?: string;
  features?: Record<string, boolean | null>;
}

/** A GraphQL call as the web client makes it, from what `client` read. */
async function call(
  client: WebClient,
  operation: XWebOperation,
  variables: Record<string, unknown>,
  options: CallOptions = {},
) {
  const known = client.operations.get(operation)!;
  const path = `/i/api/graphql/${options.queryId ?? known.queryId}/${operation}`;
  const url = new URL(`${fake.baseUrl}${path}`);
  const features =
    options.features ??
    Object.fromEntries(known.featureSwitches.map((name) => [name, client.switchValues[name]!]));
  url.searchParams.set('variables', JSON.stringify(variables));
  url.searchParams.set('features', JSON.stringify(features));
  const id =
    options.transactionId === undefined
      ? await client.transactionId('GET', path)
      : options.transactionId;
  const headers = {
    ...(options.headers ?? signedIn()),
    ...(id ? { 'x-client-transaction-id': id } : {}),
  };
  return fetch(url, { headers });
}

const lookup = (client: WebClient, options: CallOptions = {}) =>
  call(client, 'UserByScreenName', { screen_name: 'nasa' }, options);

/** The parts of X's answers these tests read. */
interface WireResult {
  __typename?: string;
  rest_id?: string;
  tweet?: WireResult;
  core?: { user_results?: { result?: WireResult }; screen_name?: string };
  legacy?: Record<string, unknown>;
  relationship_counts?: unknown;
}
interface WireItemContent {
  tweet_results?: { result?: WireResult };
  promotedMetadata?: unknown;
}
interface WireEntry {
  entryId: string;
  content: {
    entryType?: string;
    cursorType?: string;
    value?: string;
    itemContent?: WireItemContent;
    items?: { item: { itemContent: WireItemContent } }[];
  };
}
interface WireInstruction {
  type: string;
  entries?: WireEntry[];
  entry?: WireEntry;
}
interface WireBody {
  data: {
    user: {
      result: WireResult & { timeline: { timeline: { instructions: WireInstruction[] } } };
    };
  };
}
const bodyOf = async (response: Response) => (await response.json()) as WireBody;

describe('fake X web client', () => {
  it('serves the page, the bundle in both forms, the signing chunk, and 404 for other assets', async () => {
    const client = await loadWebClient();
    expect(client.html).toMatch(
      /<meta name="twitter-site-verification" content="[A-Za-z0-9+/]{64}">/,
    );
    expect(client.html.match(/<svg id="loading-x-anim-\d"/g)).toHaveLength(4);
    expect(client.html).toContain(
      `<link rel="modulepreload" href="${fake.baseUrl}/x-web/assets/vendor-`,
    );
    expect(client.bundle).toMatch(
      /params:\{id:"[^"]+",metadata:\{.*\},name:"UserByScreenName",operationKind:"query",text:void 0\}/,
    );
    expect(client.bundle).toMatch(
      /e\.exports=\{queryId:"[^"]+",operationName:"UserTweetsAndReplies",operationType:"query"/,
    );
    expect(client.operations.get('UserTweets')?.queryId).toBe(
      X_WEB_DEFAULT_OPERATIONS.UserTweets.queryId,
    );
    expect(client.switchValues).toMatchObject(X_WEB_DEFAULT_OPERATIONS.UserTweets.features);
    expect(fake.operations().UsersByRestIds.fieldToggles).toEqual([
      'withAuxiliaryUserLabels',
      'withPayments',
    ]);
    expect((await fetch(`${fake.baseUrl}/x-web/assets/main-nothere.js`)).status).toBe(404);
  });

  it('answers 404 with an empty body without a valid transaction id, for queries and sign-in', async () => {
    const client = await loadWebClient();
    for (const transactionId of [
      null,
      'bm90IGFuIGlk',
      await client.transactionId('GET', '/home'),
    ]) {
      const refused = await lookup(client, { transactionId });
      expect(refused.status).toBe(404);
      expect(await refused.text()).toBe('');
    }
    const activate = await fetch(`${fake.baseUrl}/1.1/guest/activate.json`, {
      method: 'POST',
      headers: { authorization: `Bearer ${X_WEB_BEARER}` },
    });
    expect(activate.status).toBe(404);
    expect(await activate.text()).toBe('');
    expect(fake.requests.map((r) => r.valid)).not.toContain(true);
  });

  it('accepts an id made from its page by the library, until the key rotates', async () => {
    const client = await loadWebClient();
    const ok = await lookup(client);
    expect(ok.status).toBe(200);
    const sent = fake.requests.at(-1)!;
    expect(sent).toMatchObject({ operation: 'UserByScreenName', valid: true, status: 200 });
    expect(sent.transactionId).toMatch(/^[A-Za-z0-9+/]{94}$/);
    expect(fake.webClient().animationKey).toMatch(/^[0-9a-f]+$/);

    fake.rotateVerificationKey();
    const stale = await lookup(client);
    expect(stale.status).toBe(404);
    expect(await stale.text()).toBe('');
    expect((await lookup(await loadWebClient())).status).toBe(200);
  });

  it('follows its query ids: an old one answers 404 once rotated, the new bundle has the new ones', async () => {
    const before = await loadWebClient();
    const oldMain = fake.webClient().mainScript;
    fake.rotateQueryIds();
    const old = await lookup(before);
    expect(old.status).toBe(404);
    expect(await old.text()).toBe('');
    const after = await loadWebClient();
    expect(fake.webClient().mainScript).not.toBe(oldMain);
    expect(after.operations.get('UserByScreenName')?.queryId).toBe(
      fake.operations().UserByScreenName.queryId,
    );
    expect((await lookup(after)).status).toBe(200);
    const fresh = await startFakeXWebServer({ freshQueryIds: true });
    expect(fresh.operations().UserTweets.queryId).toMatch(/^[\w-]{22}$/);
    expect(fresh.operations().UserTweets.queryId).not.toBe(
      X_WEB_DEFAULT_OPERATIONS.UserTweets.queryId,
    );
    await fresh.close();
  });

  it('answers 400 (336) naming the feature switches not sent, including a newly required one', async () => {
    const client = await loadWebClient();
    const features = { ...client.switchValues };
    delete features.verified_phone_label_enabled;
    const missing = await lookup(client, {
      features: { ...features, responsive_web_jetfuel_frame: null },
    });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({
      errors: [
        {
          message:
            'The following features cannot be null: responsive_web_jetfuel_frame, verified_phone_label_enabled',
          extensions: { name: 'BadRequestError', source: 'Client', code: 336, kind: 'Validation' },
          code: 336,
          kind: 'Validation',
          name: 'BadRequestError',
          source: 'Client',
        },
      ],
    });
    fake.requireFeature('grok_posts_everywhere_enabled', true);
    const stale = await lookup(client);
    expect(stale.status).toBe(400);
    expect(JSON.stringify(await stale.json())).toContain(
      'cannot be null: grok_posts_everywhere_enabled',
    );
    const reread = await loadWebClient();
    expect(reread.switchValues.grok_posts_everywhere_enabled).toBe(true);
    expect((await lookup(reread)).status).toBe(200);
  });
});

describe('fake X web API', () => {
  it('answers Cloudflare pages to any request while told to', async () => {
    const client = await loadWebClient();
    fake.refuseWithHtml(2);
    for (const response of [await fetch(`${fake.baseUrl}/home`), await lookup(client)]) {
      expect(response.status).toBe(403);
      expect(response.headers.get('content-type')).toContain('text/html');
      expect(response.headers.get('cf-ray')).toBeTruthy();
      expect(await response.text()).toMatch(
        /^<!DOCTYPE html><html><head><title>Just a moment\.\.\.<\/title>/,
      );
    }
    expect((await lookup(client)).status).toBe(200);
    fake.refuseWithHtml('always', 503);
    for (let n = 0; n < 3; n += 1) expect((await lookup(client)).status).toBe(503);
    fake.refuseWithHtml(0);
    expect((await lookup(client)).status).toBe(200);
  });

  it('sends users in the 2026 shape (counts out of legacy), or the old one when asked', async () => {
    const client = await loadWebClient();
    const response = await lookup(client);
    expect(response.headers.get('x-rate-limit-limit')).toBe('95');
    expect(response.headers.get('x-rate-limit-remaining')).toBe('94');
    const user = (await bodyOf(response)).data.user.result;
    expect(user).toMatchObject({
      __typename: 'User',
      rest_id: NASA_ID,
      core: { screen_name: 'nasa', name: 'nasa' },
      privacy: { protected: false },
      relationship_counts: { followers: 90_000_000, following: 50 },
      tweet_counts: { tweets: 70_000 },
      action_counts: { favorites_count: 0 },
      avatar: { image_url: expect.stringMatching(/^https:\/\//) },
      legacy: {},
    });
    expect(Object.keys(user.legacy ?? { absent: true })).toHaveLength(0);

    await fake.close();
    fake = await startFakeXWebServer({ userShape: 'legacy' });
    fake.addUser({ username: 'nasa', id: NASA_ID, followersCount: 5 });
    fake.addAccount({ username: 'reader', password: 'pw', email: 'r@example.com' });
    const old = (await bodyOf(await lookup(await loadWebClient()))).data.user.result;
    expect(old.legacy).toMatchObject({ screen_name: 'nasa', followers_count: 5 });
    expect(old.relationship_counts).toBeUndefined();
  });

  it('refuses what X refuses: no session (32), ct0 not echoed (353), a spent limit (429, 88)', async () => {
    const client = await loadWebClient();
    const session = signedIn();
    const noSession = await lookup(client, { headers: { authorization: session.authorization } });
    expect(noSession.status).toBe(401);
    expect(await noSession.json()).toMatchObject({ errors: [{ code: 32 }] });
    const noCsrf = await lookup(client, {
      headers: { authorization: session.authorization, cookie: session.cookie },
    });
    expect(noCsrf.status).toBe(403);
    expect(await noCsrf.json()).toMatchObject({ errors: [{ code: 353 }] });
    fake.setLimit('UserByScreenName', 1);
    expect((await lookup(client, { headers: session })).status).toBe(200);
    const spent = await lookup(client, { headers: session });
    expect(spent.status).toBe(429);
    expect(spent.headers.get('x-rate-limit-remaining')).toBe('0');
    expect(await spent.json()).toMatchObject({ errors: [{ code: 88 }] });
    fake.addAccount({ username: 'other', password: 'pw', email: 'o@example.com' });
    expect((await lookup(client, { headers: signedIn('other') })).status).toBe(200);
  });

  it('answers a call told to fail with 200, errors and no data, once', async () => {
    const client = await loadWebClient();
    fake.failNext('UserByScreenName', { code: 131, message: 'Internal error' });
    const failed = await lookup(client);
    expect(failed.status).toBe(200);
    expect(await failed.json()).toEqual({ errors: [{ code: 131, message: 'Internal error' }] });
    expect(failed.headers.get('x-rate-limit-remaining')).toBe('94');
    expect((await lookup(client)).status).toBe(200);
  });

  it('runs the sign-in steps in order and refuses a step out of order (366)', async () => {
    const client = await loadWebClient();
    const post = async (path: string, body: unknown, guest?: string) =>
      fetch(`${fake.baseUrl}${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${X_WEB_BEARER}`,
          'content-type': 'application/json',
          'x-client-transaction-id': await client.transactionId('POST', path.split('?')[0]!),
          ...(guest ? { 'x-guest-token': guest } : {}),
        },
        body: JSON.stringify(body),
      });
    const { guest_token: guest } = (await (await post('/1.1/guest/activate.json', {})).json()) as {
      guest_token: string;
    };
    const begun = (await (
      await post('/1.1/onboarding/task.json?flow_name=login', {}, guest)
    ).json()) as { flow_token: string; subtasks: { subtask_id: string }[] };
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

// ------------------------------------------------------------------ timelines

const BASE_ID = 1_900_000_000_000_000_000n;

function post(n: number, overrides: Partial<SourceTweet> = {}): SourceTweet {
  const id = String(BASE_ID + BigInt(n) * 10n);
  return makeTweet({
    id,
    text: `post ${n}`,
    createdAt: new Date(Date.UTC(2026, 7, 1) + n * 60_000).toISOString(),
    likeCount: 1,
    retweetCount: 0,
    replyCount: 0,
    quoteCount: 0,
    impressionCount: 10,
    conversationId: id,
    ...overrides,
  });
}

/** Posts 1-30, every third a reply to another account. */
function seed() {
  const posts = Array.from({ length: 30 }, (_, i) =>
    (i + 1) % 3 === 0
      ? post(i + 1, {
          referencedTypes: ['replied_to'],
          inReplyToUserId: '777',
          conversationId: String(BASE_ID + BigInt(i + 1) * 10n - 5n),
        })
      : post(i + 1),
  );
  fake.addSourceTweets(NASA_ID, posts);
  return posts;
}

/** Instructions of a page, and its entries' kinds (the checks a client's reader makes). */
async function page(client: WebClient, operation: XWebOperation, count: number, cursor?: string) {
  const response = await call(client, operation, {
    userId: NASA_ID,
    count,
    ...(cursor ? { cursor } : {}),
  });
  expect(response.status).toBe(200);
  const instructions = (await bodyOf(response)).data.user.result.timeline.timeline.instructions;
  const entries = instructions.find((i) => i.type === 'TimelineAddEntries')!.entries!;
  const resultOf = (content?: WireItemContent) => {
    const result = content?.tweet_results?.result;
    return result?.__typename === 'TweetWithVisibilityResults' ? result.tweet : result;
  };
  const own = entries
    .filter((e) => e.entryId.startsWith('tweet-'))
    .map((e) => resultOf(e.content.itemContent)?.rest_id)
    .filter((id): id is string => id !== undefined);
  const modules = entries.filter((e) => e.entryId.startsWith('profile-conversation-'));
  return {
    instructions,
    entries,
    own,
    modules,
    replies: modules.map((m) => resultOf(m.content.items![1]!.item.itemContent)!.rest_id!),
    promoted: entries.filter((e) => e.entryId.startsWith('promoted-tweet-')),
    tombstones: entries.filter(
      (e) => e.content.itemContent?.tweet_results?.result?.__typename === 'TweetTombstone',
    ),
    bottom: entries.find((e) => e.content.cursorType === 'Bottom')!.content.value!,
  };
}

describe('fake X web timelines', () => {
  it('pages UserTweets newest first without replies, with the pin, ads and wrapped posts', async () => {
    const posts = seed();
    const client = await loadWebClient();
    const first = await page(client, 'UserTweets', 12);
    const organic = posts.filter((p) => p.referencedTypes.length === 0).reverse();
    expect(first.own).toEqual(organic.slice(0, 12).map((p) => p.id));
    const pin = first.instructions.find((i) => i.type === 'TimelinePinEntry')!;
    expect(pin.entry!.entryId).toBe(`tweet-${organic.at(-1)!.id}`);
    expect(first.promoted).toHaveLength(1);
    expect(first.entries[2]!.entryId).toMatch(/^promoted-tweet-\d+-\d+$/);
    const ad = first.promoted[0]!.content.itemContent!;
    expect(ad.promotedMetadata).toBeDefined();
    expect(ad.tweet_results?.result?.core?.user_results?.result?.rest_id).not.toBe(NASA_ID);
    expect(JSON.stringify(first.entries)).toContain('"__typename":"TweetWithVisibilityResults"');
    const second = await page(client, 'UserTweets', 12, first.bottom);
    expect(second.own).toEqual(organic.slice(12).map((p) => p.id));
    expect(second.instructions.some((i) => i.type === 'TimelinePinEntry')).toBe(false);
    const end = await page(client, 'UserTweets', 12, second.bottom);
    expect(end.own).toEqual([]);
  });

  it('puts each reply of UserTweetsAndReplies in a conversation after the post it answers', async () => {
    const posts = seed();
    const client = await loadWebClient();
    const all = await page(client, 'UserTweetsAndReplies', 40);
    const replies = posts.filter((p) => p.referencedTypes.length > 0).reverse();
    expect(all.replies).toEqual(replies.map((p) => p.id));
    const first = all.modules[0]!.content;
    expect(first.entryType).toBe('TimelineTimelineModule');
    const parent = first.items![0]!.item.itemContent.tweet_results!.result!;
    expect(parent.core?.user_results?.result?.rest_id).toBe('777');
    expect(parent.rest_id).toBe(replies[0]!.conversationId);
    expect(all.own.length + all.replies.length).toBe(30);
  });

  it('plays the quirks: filler pages, a cursor that never advances, tombstones', async () => {
    const posts = seed();
    const client = await loadWebClient();
    fake.setTimelineQuirks({ fillerPages: 2 });
    let cursor: string | undefined;
    for (let n = 0; n < 2; n += 1) {
      const filler = await page(client, 'UserTweets', 5, cursor);
      expect(filler.own).toEqual([]);
      expect(filler.promoted.length).toBeGreaterThan(0);
      expect(filler.bottom).not.toBe(cursor);
      cursor = filler.bottom;
    }
    expect((await page(client, 'UserTweets', 5, cursor)).own).toHaveLength(5);

    fake.setTimelineQuirks({ repeatCursor: true });
    const start = await page(client, 'UserTweets', 5);
    const again = await page(client, 'UserTweets', 5, start.bottom);
    expect(again.bottom).toBe(start.bottom);

    fake.setTimelineQuirks({ tombstoneEvery: 2 });
    const withTombstones = await page(client, 'UserTweetsAndReplies', 30);
    expect(withTombstones.tombstones).toHaveLength(15);
    expect(withTombstones.own.length + withTombstones.replies.length).toBe(posts.length);
  });
});
