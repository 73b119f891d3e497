import type { LightMyRequestResponse } from 'fastify';
import { SaxesParser, type SaxesAttributeNS } from 'saxes';
import { afterEach, describe, expect, it } from 'vitest';
import { FEED_ITEM_LIMIT, FEED_MESSAGES, feedsSchema, type Feeds } from '@perch/shared';
import { upsertTweets } from '../src/modules/tweets/tweets.repository.js';
import { requestForLog } from '../src/app.js';
import { sha256Hex } from '../src/lib/tokens.js';
import { dataOf, errorOf, expectError, setCookieLines } from './assertions.js';
import { makeTweet } from './factories.js';
import { DIALECTS, TestClient, buildTestApp, type TestApp } from './helpers.js';
import { handleFollowedBy, postsOfOneSecond, storeNewestFirst } from './notify-helpers.js';
import { registeredRoutes } from './routes.js';

/** An element of a parsed XML document: its name, attributes, text and children. */
interface XmlNode {
  name: string;
  attributes: Record<string, string>;
  text: string;
  children: XmlNode[];
}

/**
 * Parses XML with a strict, namespace-aware parser (saxes): any well-formedness error, or a
 * prefix without its namespace, fails the test.
 */
function parseXml(xml: string): XmlNode {
  const parser = new SaxesParser({ xmlns: true });
  const root: XmlNode = { name: '#document', attributes: {}, text: '', children: [] };
  const stack: XmlNode[] = [root];
  parser.on('error', (error) => {
    throw error;
  });
  parser.on('opentag', (tag) => {
    const attributes = Object.fromEntries(
      Object.entries(tag.attributes as Record<string, SaxesAttributeNS>).map(([name, attr]) => [
        name,
        attr.value,
      ]),
    );
    const node: XmlNode = { name: tag.name, attributes, text: '', children: [] };
    stack[stack.length - 1]?.children.push(node);
    stack.push(node);
  });
  parser.on('text', (text) => {
    const top = stack[stack.length - 1];
    if (top) top.text += text;
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  parser.write(xml).close();
  const [document] = root.children;
  if (!document) throw new Error('no root element');
  return document;
}

const child = (node: XmlNode | undefined, name: string) =>
  node?.children.find((entry) => entry.name === name);
const children = (node: XmlNode | undefined, name: string) =>
  node?.children.filter((entry) => entry.name === name) ?? [];
const textOf = (node: XmlNode | undefined, name: string) => child(node, name)?.text;

interface JsonFeed {
  version: string;
  title: string;
  home_page_url: string;
  feed_url: string;
  items: {
    id: string;
    url: string;
    title: string;
    content_text: string;
    content_html: string;
    date_published: string;
    image?: string;
    attachments?: { url: string; mime_type: string }[];
  }[];
}

describe.each(DIALECTS)('RSS and JSON feeds [%s]', (dialect) => {
  let t: TestApp;

  afterEach(async () => {
    await t?.close();
  });

  async function setUp() {
    t = await buildTestApp(dialect);
    const ada = new TestClient(t.app);
    const adaId = (await ada.register(t.db, 'ada')).data.user.id;
    const bob = new TestClient(t.app);
    const bobId = (await bob.register(t.db, 'bob')).data.user.id;
    const nasaId = await handleFollowedBy(t, 'NASA', [adaId], {});
    const otherId = await handleFollowedBy(t, 'bobs_only', [bobId], {});
    return { ada, adaId, bob, bobId, nasaId, otherId };
  }

  const feedsOf = async (client: TestClient): Promise<Feeds> =>
    dataOf(await client.get('/api/v1/settings/feeds'), feedsSchema);

  /** A feed reader: no cookies, no CSRF, only the address (and validators when given). */
  const read = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: new URL(url).pathname, headers });

  const store = (handleId: number, tweets: ReturnType<typeof makeTweet>[], seenAt = new Date()) =>
    upsertTweets(t.db.db, handleId, tweets, seenAt.toISOString());

  it('makes the secret on first use, keeps it, and lists each followed handle', async () => {
    const { ada, adaId } = await setUp();
    const first = await feedsOf(ada);
    expect(first.feeds).toEqual([
      {
        handle: 'NASA',
        rssUrl: expect.stringMatching(
          /^http:\/\/localhost(:80)?\/api\/v1\/feeds\/[\w-]{32}\/NASA\.rss$/,
        ),
        jsonUrl: expect.stringMatching(/\/NASA\.json$/),
      },
    ]);
    expect(await feedsOf(ada)).toEqual(first);
    // Stored as a hash (to find the user) and sealed (to show it again), never in clear.
    const token = /feeds\/([\w-]+)\//.exec(first.feeds[0]?.rssUrl ?? '')?.[1] ?? '';
    const row = await t.db.db
      .selectFrom('feed_tokens')
      .selectAll()
      .where('user_id', '=', adaId)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(sha256Hex(token));
    expect(row.token_sealed).not.toContain(token);
    expect(JSON.stringify(row)).not.toContain(token);
  });

  it('serves RSS 2.0: well-formed, escaped, newest 50 with title, link, guid, date and media', async () => {
    const { ada, nasaId } = await setUp();
    const now = Date.now();
    const older = Array.from({ length: FEED_ITEM_LIMIT + 5 }, (_, index) =>
      makeTweet({
        text: `Update ${index}`,
        createdAt: new Date(now - (FEED_ITEM_LIMIT + 10 - index) * 60_000).toISOString(),
      }),
    );
    const tricky = makeTweet({
      text: 'Fish & "chips" <b>bold</b> ]]> it\'s\u0001 fine\nsecond line',
      createdAt: new Date(now - 30_000).toISOString(),
    });
    const photo = makeTweet({
      text: 'Liftoff!',
      createdAt: new Date(now - 10_000).toISOString(),
      media: [
        { type: 'photo', url: 'https://pbs.twimg.com/media/liftoff.jpg?a=1&b=2', previewUrl: null },
      ],
    });
    await store(nasaId, [...older, tricky, photo]);
    const { feeds } = await feedsOf(ada);
    const response = await read(feeds[0]?.rssUrl ?? '');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/rss+xml; charset=utf-8');
    expect(setCookieLines(response)).toEqual([]);
    expect(response.headers['cache-control']).toBe('private, max-age=300');

    const rss = parseXml(response.body);
    expect(rss.name).toBe('rss');
    expect(rss.attributes.version).toBe('2.0');
    const channel = child(rss, 'channel');
    expect(textOf(channel, 'title')).toBe('NASA & Co <b> (@NASA) on X');
    expect(textOf(channel, 'link')).toBe('https://x.com/NASA');
    expect(child(channel, 'atom:link')?.attributes.href).toBe(feeds[0]?.rssUrl);
    const items = children(channel, 'item');
    expect(items).toHaveLength(FEED_ITEM_LIMIT);

    const [first, second] = items;
    expect(textOf(first, 'title')).toBe('Liftoff!');
    expect(textOf(first, 'link')).toBe(`https://x.com/NASA/status/${photo.id}`);
    expect(child(first, 'guid')?.attributes.isPermaLink).toBe('true');
    expect(textOf(first, 'guid')).toBe(`https://x.com/NASA/status/${photo.id}`);
    expect(textOf(first, 'pubDate')).toBe(new Date(photo.createdAt).toUTCString());
    expect(textOf(first, 'description')).toBe(
      '<p>Liftoff!</p><p><img src="https://pbs.twimg.com/media/liftoff.jpg?a=1&amp;b=2" alt="Photo"></p>',
    );
    // The text reaches the reader as written (HTML-escaped inside the description), without
    // the control character XML cannot hold.
    expect(textOf(second, 'title')).toBe('Fish & "chips" <b>bold</b> ]]> it\'s fine second line');
    expect(textOf(second, 'description')).toBe(
      "<p>Fish &amp; &quot;chips&quot; &lt;b&gt;bold&lt;/b&gt; ]]&gt; it's fine<br>second line</p>",
    );
    // Newest first; the oldest five are left out.
    const dates = items.map((item) => Date.parse(textOf(item, 'pubDate') ?? ''));
    expect(dates).toEqual([...dates].sort((a, b) => b - a));
    const links = items.map((item) => textOf(item, 'link'));
    for (const tweet of older.slice(0, 7)) {
      expect(links).not.toContain(`https://x.com/NASA/status/${tweet.id}`);
    }
  });

  it('serves JSON Feed 1.1 with the same items', async () => {
    const { ada, nasaId } = await setUp();
    const video = makeTweet({
      text: 'Watch <this>',
      media: [
        { type: 'video', url: null, previewUrl: 'https://pbs.twimg.com/ext_tw_video_thumb/1.jpg' },
      ],
    });
    await store(nasaId, [video]);
    const { feeds } = await feedsOf(ada);
    const response = await read(feeds[0]?.jsonUrl ?? '');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/feed+json; charset=utf-8');
    const feed = response.json() as JsonFeed;
    expect(feed).toMatchObject({
      version: 'https://jsonfeed.org/version/1.1',
      title: 'NASA & Co <b> (@NASA) on X',
      home_page_url: 'https://x.com/NASA',
      feed_url: feeds[0]?.jsonUrl,
    });
    expect(feed.items).toEqual([
      {
        id: `https://x.com/NASA/status/${video.id}`,
        url: `https://x.com/NASA/status/${video.id}`,
        title: 'Watch <this>',
        content_text: 'Watch <this>',
        content_html: `<p>Watch &lt;this&gt;</p><p><a href="https://x.com/NASA/status/${video.id}"><img src="https://pbs.twimg.com/ext_tw_video_thumb/1.jpg" alt="Video"></a></p>`,
        date_published: video.createdAt,
        image: 'https://pbs.twimg.com/ext_tw_video_thumb/1.jpg',
        attachments: [
          { url: 'https://pbs.twimg.com/ext_tw_video_thumb/1.jpg', mime_type: 'image/jpeg' },
        ],
      },
    ]);
  });

  it('lists posts of one second newest first by post id, in both formats', async () => {
    const { ada, nasaId } = await setUp();
    const posts = postsOfOneSecond();
    await storeNewestFirst(t, nasaId, posts);
    const { feeds } = await feedsOf(ada);
    // Neither the storage order nor the ids' text order ('999…' first) is this one.
    const newestFirst = posts.map((post) => `https://x.com/NASA/status/${post.id}`).reverse();
    const rss = parseXml((await read(feeds[0]?.rssUrl ?? '')).body);
    const items = children(child(rss, 'channel'), 'item');
    expect(items.map((item) => textOf(item, 'link'))).toEqual(newestFirst);
    const json = (await read(feeds[0]?.jsonUrl ?? '')).json() as JsonFeed;
    expect(json.items.map((item) => item.url)).toEqual(newestFirst);
  });

  it('answers 304 to a reader whose copy is current (ETag, Last-Modified), 200 once it changed', async () => {
    const { ada, nasaId } = await setUp();
    await store(nasaId, [makeTweet({ text: 'First' })]);
    const url = (await feedsOf(ada)).feeds[0]?.rssUrl ?? '';
    const first = await read(url);
    const etag = String(first.headers.etag);
    const lastModified = String(first.headers['last-modified']);
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(Date.parse(lastModified)).not.toBeNaN();
    // The same answer twice (nothing in the body changes with the clock).
    expect((await read(url)).body).toBe(first.body);

    const byTag = await read(url, { 'if-none-match': etag });
    expect(byTag.statusCode).toBe(304);
    expect(byTag.body).toBe('');
    expect(byTag.headers.etag).toBe(etag);
    expect((await read(url, { 'if-none-match': `"other", W/${etag}` })).statusCode).toBe(304);
    expect((await read(url, { 'if-modified-since': lastModified })).statusCode).toBe(304);
    // A tag that does not match wins over a date that would.
    expect(
      (await read(url, { 'if-none-match': '"stale"', 'if-modified-since': lastModified }))
        .statusCode,
    ).toBe(200);
    expect(
      (
        await read(url, {
          'if-modified-since': new Date(Date.parse(lastModified) - 60_000).toUTCString(),
        })
      ).statusCode,
    ).toBe(200);

    // Collected a second later: Last-Modified counts whole seconds.
    await store(nasaId, [makeTweet({ text: 'Second' })], new Date(Date.now() + 1_000));
    const changed = await read(url, { 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect((await read(url, { 'if-modified-since': lastModified })).statusCode).toBe(200);
  });

  it('answers every miss with the same 404: unknown token, bad file, a handle not followed', async () => {
    const { ada, bob, nasaId } = await setUp();
    const rss = (await feedsOf(ada)).feeds[0]?.rssUrl ?? '';
    const base = rss.slice(0, rss.lastIndexOf('/'));
    const token = base.slice(base.lastIndexOf('/') + 1);
    const misses = [
      `${base}/bobs_only.rss`,
      `${base}/nobody_here.rss`,
      `${base}/NASA.atom`,
      `${base}/NASA`,
      `${base}/NASA.rss.json`,
      `http://localhost/api/v1/feeds/${'A'.repeat(32)}/NASA.rss`,
      `http://localhost/api/v1/feeds/${token.slice(0, -1)}/NASA.rss`,
      `http://localhost/api/v1/feeds/${token}x/NASA.rss`,
      `http://localhost/api/v1/feeds/short/NASA.rss`,
      `http://localhost/api/v1/feeds/${token}/NASA.rss/extra`,
    ];
    const bodies = new Set<string>();
    for (const url of misses) {
      const response = await read(url);
      expect(response.statusCode, url).toBe(404);
      if (url.includes('extra')) continue; // no such route: the router's own 404
      expect(errorOf(response)).toEqual({
        success: false,
        message: FEED_MESSAGES.notFound,
        code: 'NOT_FOUND',
      });
      bodies.add(response.body);
    }
    expect(bodies.size).toBe(1);
    // Bob's own handle works with Bob's token, not Ada's.
    const bobsFeed = (await feedsOf(bob)).feeds[0];
    expect(bobsFeed?.handle).toBe('bobs_only');
    expect((await read(bobsFeed?.rssUrl ?? '')).statusCode).toBe(200);
    // Ada unfollows NASA: its feed is gone too.
    expect((await ada.delete(`/api/v1/handles/${nasaId}`)).statusCode).toBe(200);
    expect((await read(rss)).statusCode).toBe(404);
  });

  it('regenerate: new addresses at once, the old ones stop working; signed out gets 401', async () => {
    const { ada } = await setUp();
    const before = await feedsOf(ada);
    const oldUrl = before.feeds[0]?.rssUrl ?? '';
    expect((await read(oldUrl)).statusCode).toBe(200);
    const response = await ada.post('/api/v1/settings/feeds/regenerate');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ message: FEED_MESSAGES.regenerated });
    const after = dataOf(response, feedsSchema);
    expect(after.feeds[0]?.rssUrl).not.toBe(oldUrl);
    expect(await feedsOf(ada)).toEqual(after);
    expect((await read(oldUrl)).statusCode).toBe(404);
    expect((await read(after.feeds[0]?.rssUrl ?? '')).statusCode).toBe(200);
    expect((await read(after.feeds[0]?.jsonUrl ?? '')).statusCode).toBe(200);

    const stranger = new TestClient(t.app);
    expectError(await stranger.get('/api/v1/settings/feeds'), 401);
    expectError(await stranger.post('/api/v1/settings/feeds/regenerate'), 401);
    // Without the CSRF header, regenerate is refused even signed in.
    expectError(
      await ada.request({ method: 'POST', url: '/api/v1/settings/feeds/regenerate', csrf: false }),
      403,
      { code: 'CSRF_INVALID' },
    );
  });

  it('only the feed route skips the session: every other route still runs it', async () => {
    const { ada, bob } = await setUp();
    const url = (await feedsOf(ada)).feeds[0]?.rssUrl ?? '';
    // Bob's session on Ada's feed: the feed answers as it does for anyone with the address.
    const asBob = await bob.request({ method: 'GET', url: new URL(url).pathname });
    const anonymous = await read(url);
    expect(asBob.statusCode).toBe(200);
    expect(asBob.body).toBe(anonymous.body);
    expect(setCookieLines(asBob)).toEqual([]);
    expect((await t.app.inject({ method: 'HEAD', url: new URL(url).pathname })).statusCode).toBe(
      200,
    );

    // Any other GET under /api/v1 (filled with dummy parameters) runs the session hook: it
    // hands a cookie-less visitor a CSRF cookie.
    const others = registeredRoutes(t.app, '/api/v1/').filter(
      (route) => route.method === 'GET' && !route.path.startsWith('/api/v1/feeds/'),
    );
    expect(others.length).toBeGreaterThan(20);
    for (const route of others) {
      if (route.path === '/api/v1/events') continue; // a stream: checked elsewhere
      const path = route.path.replace(/:[^/]+/g, '1');
      const response: LightMyRequestResponse = await t.app.inject({ method: 'GET', url: path });
      expect(
        setCookieLines(response).some((line) => line.startsWith('perch_csrf=')),
        `${route.path} skipped the session hook`,
      ).toBe(true);
    }
    // Writes to a feed path are no feed: no route serves them, with or without CSRF.
    const post = await t.app.inject({ method: 'POST', url: new URL(url).pathname });
    expect(post.statusCode).toBe(404);
    expect(setCookieLines(post)).toEqual([]);
    expect((await ada.post(new URL(url).pathname)).statusCode).toBe(404);
  });
});

describe('request log lines', () => {
  it('never show a feed secret', () => {
    expect(
      requestForLog({ method: 'GET', url: '/api/v1/feeds/s3cr3t-T0ken/NASA.rss?x=1', ip: '::1' }),
    ).toEqual({ method: 'GET', url: '/api/v1/feeds/[token]/NASA.rss?x=1', remoteAddress: '::1' });
    expect(requestForLog({ method: 'GET', url: '/api/v1/handles' }).url).toBe('/api/v1/handles');
  });
});
