// Deterministic synthetic data for the analytics benchmark: one handle's tweets over a window
// (originals, replies, self-reply threads, quotes, retweets; photos, videos, GIFs, links,
// hashtags in varied case, several languages, heavy-tailed engagement), an hourly profile
// snapshot and about one metric snapshot per recent post. The same seed gives the same data.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** X's snowflake epoch. */
const TWITTER_EPOCH = 1_288_834_974_657n;

/** mulberry32: small, fast, good enough for test data. */
export function createRng(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (list) => list[Math.floor(next() * list.length)],
    /** Standard normal (Box-Muller). */
    normal: () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next()),
  };
}

const WORDS = {
  en: (
    'launch product update team today week shipping release feature customers growth data ' +
    'analytics dashboard metrics engineering design startup founder build learn thread ' +
    'lesson mistake hiring remote culture market pricing revenue users feedback roadmap ' +
    'open source community event conference talk slides podcast episode interview video ' +
    'morning coffee weekend project experiment result numbers chart insight strategy ' +
    'writing newsletter article story announcement milestone thanks everyone amazing great ' +
    'simple fast reliable scale performance latency database server frontend backend api ' +
    'testing deploy production incident postmortem debugging tooling workflow automation ' +
    'model training research paper benchmark prototype demo beta waitlist signup onboarding'
  ).split(' '),
  es: (
    'hoy semana equipo lanzamiento producto clientes datos crecimiento gracias todos nuevo ' +
    'proyecto mañana reunión resultados comunidad evento charla aprendizaje diseño mercado'
  ).split(' '),
  de: (
    'heute woche team produkt kunden daten wachstum danke alle neues projekt morgen ' +
    'ergebnisse gemeinschaft veranstaltung vortrag lernen entwicklung markt'
  ).split(' '),
  fr: (
    'aujourd semaine équipe lancement produit clients données croissance merci nouveau ' +
    'projet demain réunion résultats communauté événement conférence apprentissage'
  ).split(' '),
  pt: (
    'hoje semana equipe lançamento produto clientes dados crescimento obrigado novo ' +
    'projeto amanhã reunião resultados comunidade evento palestra aprendizado'
  ).split(' '),
  ja: 'きょう 新しい 製品 チーム データ 成長 ありがとう プロジェクト 結果 イベント 発表 学習 開発 市場'.split(
    ' ',
  ),
};
/** Share of posts per language; null is a post X gave no language. */
const LANGUAGES = [
  ['en', 0.7],
  ['es', 0.09],
  ['ja', 0.05],
  ['de', 0.05],
  ['fr', 0.04],
  ['pt', 0.04],
  [null, 0.03],
];
const HASHTAGS = (
  'AI MachineLearning BuildInPublic IndieHackers SaaS Startup Analytics DataScience DevOps ' +
  'OpenSource JavaScript TypeScript React NodeJS Python Rust Golang Postgres SQLite Cloud ' +
  'Kubernetes Security Privacy Design UX Product Marketing Growth SEO Remote Hiring ' +
  'Leadership Productivity Writing Podcast Newsletter Launch Beta Demo Conference Meetup ' +
  'WebDev Frontend Backend API Testing Performance Observability Monitoring Database Scaling'
).split(' ');
const LINK_DOMAINS = [
  'https://blog.example.com/posts',
  'https://news.example.org/article',
  'https://github.com/example/repo/pull',
  'https://www.youtube.com/watch?v=',
  'https://docs.example.dev/guide',
  'https://medium.com/@example',
  'https://substack.example.com/p',
];
const EMOJI = ['🚀', '🎉', '📈', '🔥', '✅', '👀', '🙏', '💡'];

/** The n-th tweet id at `ms`: a snowflake, so ids grow with time as X's do. */
function snowflake(ms, sequence) {
  return ((BigInt(ms) - TWITTER_EPOCH) << 22n) | BigInt(sequence & 0x3fffff);
}

/** A tag as people type it: as listed, lower case, upper case or capitalized. */
function casing(rng, tag) {
  const roll = rng.next();
  if (roll < 0.55) return tag;
  if (roll < 0.8) return tag.toLowerCase();
  if (roll < 0.9) return tag.toUpperCase();
  return tag[0].toUpperCase() + tag.slice(1).toLowerCase();
}

function pickLanguage(rng) {
  let roll = rng.next();
  for (const [lang, share] of LANGUAGES) {
    roll -= share;
    if (roll < 0) return lang;
  }
  return 'en';
}

function sentence(rng, lang) {
  const words = WORDS[lang ?? 'en'];
  const count = rng.int(6, 28);
  const parts = [];
  for (let i = 0; i < count; i++) parts.push(rng.pick(words));
  if (rng.next() < 0.25) parts.push(rng.pick(EMOJI));
  const text = parts.join(lang === 'ja' ? '' : ' ');
  return text[0].toUpperCase() + text.slice(1) + (rng.next() < 0.5 ? '.' : '');
}

/** A time in the window, busier in the (New York) day than at night. */
function postTime(rng, start, end) {
  for (;;) {
    const ms = start + Math.floor(rng.next() * (end - start));
    const hour = (new Date(ms).getUTCHours() + 19) % 24; // roughly UTC-5
    const weight = hour >= 8 && hour <= 22 ? 1 : 0.3;
    if (rng.next() < weight) return ms;
  }
}

/**
 * One handle's data: `posts` tweets that are not retweets (the posts the engine counts) plus
 * about 11% retweets, created in (end - days, end]. Returns source tweets (as a source reports
 * them: ISO times, oldest first), hourly profile snapshots and metric snapshots.
 */
export function generateHandleData({ posts, end, days = 30, seed = 1, xUserId = '4242424242' }) {
  const rng = createRng(seed);
  const start = end - days * DAY + HOUR;
  const last = end - 60_000;
  const retweets = Math.round(posts * 0.11);
  const times = Array.from({ length: posts + retweets }, () => postTime(rng, start, last));
  times.sort((a, b) => a - b);
  // Which of the time slots are retweets: spread at random.
  const kinds = times.map((_, i) => (i < retweets ? 'retweet' : 'post'));
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [kinds[i], kinds[j]] = [kinds[j], kinds[i]];
  }

  const others = Array.from({ length: 400 }, (_, i) => ({
    name: `someone_${i.toString(36)}`,
    id: String(10_000_000 + i * 7919),
  }));
  const tweets = [];
  /** The open thread: root id and how many self-replies are still to come. */
  let thread = null;
  let lastMs = -1;
  let sequence = 0;

  for (let i = 0; i < times.length; i++) {
    const ms = times[i];
    sequence = ms === lastMs ? sequence + 1 : 0;
    lastMs = ms;
    const id = snowflake(ms, sequence).toString();
    const lang = pickLanguage(rng);
    const other = rng.pick(others);
    let text = sentence(rng, lang);
    let conversationId = id;
    let inReplyToUserId = null;
    const referencedTypes = [];
    const hashtags = [];
    const urls = [];
    const media = [];

    if (kinds[i] === 'retweet') {
      text = `RT @${other.name}: ${text}`;
      referencedTypes.push('retweeted');
    } else {
      const roll = rng.next();
      if (thread && ms - thread.lastMs < 3 * HOUR && rng.next() < 0.6) {
        // The next post of an open thread: a reply to the handle itself.
        thread.position += 1;
        thread.remaining -= 1;
        thread.lastMs = ms;
        text = `${thread.position}/ ${text}`;
        conversationId = thread.rootId;
        inReplyToUserId = xUserId;
        referencedTypes.push('replied_to');
        if (thread.remaining === 0) thread = null;
      } else if (roll < 0.2) {
        text = `@${other.name} ${text}`;
        conversationId = snowflake(ms - rng.int(60_000, 12 * HOUR), rng.int(0, 4095)).toString();
        inReplyToUserId = other.id;
        referencedTypes.push('replied_to');
      } else if (roll < 0.28) {
        referencedTypes.push('quoted');
        const quoted = snowflake(ms - rng.int(60_000, 3 * DAY), rng.int(0, 4095)).toString();
        urls.push(`https://x.com/${other.name}/status/${quoted}`);
      } else if (roll < 0.32) {
        // An original that opens a thread of 2-6 posts.
        thread = { rootId: id, position: 1, remaining: rng.int(1, 5), lastMs: ms };
        text = `1/ ${text} 🧵`;
      }

      const tagRoll = rng.next();
      const tagCount = tagRoll < 0.7 ? 0 : tagRoll < 0.9 ? 1 : tagRoll < 0.97 ? 2 : 3;
      for (let k = 0; k < tagCount; k++) hashtags.push(casing(rng, rng.pick(HASHTAGS)));
      if (rng.next() < 0.15) urls.push(`${rng.pick(LINK_DOMAINS)}/${id.slice(-9)}`);
      const mediaRoll = rng.next();
      const image = (n) => `https://pbs.twimg.com/media/${id.slice(-10)}_${n}.jpg`;
      if (mediaRoll < 0.18) {
        const photos = rng.next() < 0.7 ? 1 : rng.int(2, 4);
        for (let n = 0; n < photos; n++)
          media.push({ type: 'photo', url: image(n), previewUrl: null });
      } else if (mediaRoll < 0.24) {
        media.push({ type: 'video', url: null, previewUrl: image(0) });
      } else if (mediaRoll < 0.26) {
        media.push({ type: 'animated_gif', url: null, previewUrl: image(0) });
      }
      if (hashtags.length > 0) text += ' ' + hashtags.map((tag) => `#${tag}`).join(' ');
      // Links show in the text as t.co short links, as X writes them.
      urls.forEach((_, n) => (text += ` https://t.co/${id.slice(-9)}${n}`));
    }

    // Heavy-tailed engagement: log-normal, and one post in a hundred goes viral.
    const viral = kinds[i] !== 'retweet' && rng.next() < 0.01 ? rng.int(20, 200) : 1;
    const likes = Math.floor(8 * Math.exp(rng.normal() * 1.4) * viral);
    const jitter = () => Math.exp(rng.normal() * 0.5);
    const isRetweet = kinds[i] === 'retweet';
    tweets.push({
      id,
      text,
      createdAt: new Date(ms).toISOString(),
      lang,
      likeCount: isRetweet ? 0 : likes,
      retweetCount: Math.floor(likes * 0.15 * jitter()),
      replyCount: isRetweet ? 0 : Math.floor(likes * 0.06 * jitter()),
      quoteCount: isRetweet ? 0 : Math.floor(likes * 0.02 * jitter()),
      impressionCount: isRetweet ? 0 : rng.next() < 0.05 ? null : likes * rng.int(30, 120) + 200,
      conversationId,
      inReplyToUserId,
      referencedTypes,
      hashtags,
      urls,
      media,
    });
  }

  // Metric snapshots: posts of the last 7 days were read again by the metric refresh, mostly
  // once (some twice), part-way to their final numbers; readings are taken on 15-minute ticks.
  const metricSnapshots = [];
  for (const tweet of tweets) {
    const created = Date.parse(tweet.createdAt);
    if (tweet.referencedTypes.includes('retweeted') || end - created > 7 * DAY) continue;
    const readings = rng.next() < 0.8 ? 1 : 2;
    let takenAt = created;
    for (let r = 0; r < readings; r++) {
      takenAt += rng.int(20, 8 * 60) * 60_000;
      takenAt = Math.ceil(takenAt / (15 * 60_000)) * 15 * 60_000;
      if (takenAt > end) break;
      const share = Math.min(1, 0.3 + 0.3 * (r + 1) + rng.next() * 0.2);
      metricSnapshots.push({
        takenAt: new Date(takenAt).toISOString(),
        tweet: {
          ...tweet,
          likeCount: Math.floor(tweet.likeCount * share),
          retweetCount: Math.floor(tweet.retweetCount * share),
          replyCount: Math.floor(tweet.replyCount * share),
          quoteCount: Math.floor(tweet.quoteCount * share),
          impressionCount:
            tweet.impressionCount === null ? null : Math.floor(tweet.impressionCount * share),
        },
      });
    }
  }

  // One profile snapshot an hour over the window; followers grow with some noise.
  const profileSnapshots = [];
  let followers = 25_000;
  for (let ms = end - days * DAY + HOUR; ms <= end; ms += HOUR) {
    followers = Math.max(0, followers + Math.round(8 + rng.normal() * 12));
    profileSnapshots.push({
      takenAt: new Date(ms).toISOString(),
      profile: {
        xUserId,
        username: 'bench',
        name: 'Bench',
        followersCount: followers,
        followingCount: 812,
        tweetCount: 48_000 + tweets.length,
        likeCount: 120_000,
        protected: false,
      },
    });
  }

  return { tweets, metricSnapshots, profileSnapshots };
}

/** A source tweet as the engine reads it (what parseTweetRow makes of its stored row). */
function toAnalyticsTweet(tweet) {
  return {
    id: tweet.id,
    text: tweet.text,
    createdAt: Date.parse(tweet.createdAt),
    lang: tweet.lang,
    likes: tweet.likeCount,
    retweets: tweet.retweetCount,
    replies: tweet.replyCount,
    quotes: tweet.quoteCount,
    impressions: tweet.impressionCount,
    conversationId: tweet.conversationId,
    inReplyToUserId: tweet.inReplyToUserId,
    isRetweet: tweet.referencedTypes.includes('retweeted'),
    isQuote: tweet.referencedTypes.includes('quoted'),
    isReply: tweet.referencedTypes.includes('replied_to'),
    hashtags: tweet.hashtags,
    urls: tweet.urls,
    media: tweet.media,
  };
}

/** The engine's input for generated data (AnalyticsInput of apps/server/src/analytics). */
export function toAnalyticsInput(data, { handle, xUserId, end, days = 30, timezone }) {
  return {
    handle,
    xUserId,
    tweets: data.tweets.map(toAnalyticsTweet),
    profileSnapshots: data.profileSnapshots.map(({ takenAt, profile }) => ({
      takenAt: Date.parse(takenAt),
      followers: profile.followersCount,
      following: profile.followingCount,
      tweetCount: profile.tweetCount,
      likeCount: profile.likeCount,
    })),
    metricSnapshots: data.metricSnapshots.map(({ takenAt, tweet }) => ({
      tweetId: tweet.id,
      takenAt: Date.parse(takenAt),
      likes: tweet.likeCount,
      retweets: tweet.retweetCount,
      replies: tweet.replyCount,
      quotes: tweet.quoteCount,
    })),
    window: { start: end - days * DAY, end },
    timezone,
  };
}
