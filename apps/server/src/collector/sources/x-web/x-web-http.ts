/**
 * What X's web client sends (docs/decisions.md, "x-web source"): the web app's public bearer
 * token, the guest token for the sign-in flow, the session cookies (auth_token, ct0) with ct0
 * echoed as x-csrf-token, and the GraphQL operations with their variables and features. Facts
 * read in twscrape (login.py, api.py, account.py, queue_client.py), Nitter and RSSHub.
 */
import { createHmac } from 'node:crypto';

/** The bearer token the x.com web app itself sends (public: it is in the web app's code). */
export const X_WEB_BEARER =
  'AAAAAAAAAAAAAAAAAAAAANRILgAAAAAAnNwIzUejRCOuH5E6I8xnZz4puTs%3D1Zv7ttfk8LF81IUq16cHjhLTvJu4FA33AGWWjCpTnA';

/** A browser's user agent: X answers unknown clients less kindly. */
export const X_WEB_USER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/**
 * The GraphQL operations: `id/Name` as the web client calls them. X rotates the ids with its
 * deployments; an outdated id answers 404, which the source reports as X having changed.
 */
export const X_WEB_OPERATION_PATHS = {
  UserByScreenName: 'QGIw94L0abhuohrr76cSbw/UserByScreenName',
  UserTweets: 'bDGQZ9i975PnuFhihvzGug/UserTweets',
  UsersByRestIds: 'itEhGywpgX9b3GJCzOtSrA/UsersByRestIds',
  TweetResultsByRestIds: '-R17e8UqwApFGdMxa3jASA/TweetResultsByRestIds',
} as const;

/** The features the web client sends with every GraphQL call (X answers 400 when one is missing). */
export const X_WEB_FEATURES: Record<string, boolean> = {
  articles_preview_enabled: false,
  c9s_tweet_anatomy_moderator_badge_enabled: true,
  communities_web_enable_tweet_community_results_fetch: true,
  creator_subscriptions_quote_tweet_preview_enabled: false,
  creator_subscriptions_tweet_preview_api_enabled: true,
  freedom_of_speech_not_reach_fetch_enabled: true,
  graphql_is_translatable_rweb_tweet_is_translatable_enabled: true,
  longform_notetweets_consumption_enabled: true,
  longform_notetweets_inline_media_enabled: true,
  longform_notetweets_rich_text_read_enabled: true,
  responsive_web_edit_tweet_api_enabled: true,
  responsive_web_enhance_cards_enabled: false,
  responsive_web_graphql_exclude_directive_enabled: true,
  responsive_web_graphql_skip_user_profile_image_extensions_enabled: false,
  responsive_web_graphql_timeline_navigation_enabled: true,
  responsive_web_media_download_video_enabled: false,
  responsive_web_twitter_article_tweet_consumption_enabled: true,
  rweb_tipjar_consumption_enabled: true,
  rweb_video_timestamps_enabled: true,
  standardized_nudges_misinfo: true,
  tweet_awards_web_tipping_enabled: false,
  tweet_with_visibility_results_prefer_gql_limited_actions_policy_enabled: true,
  tweet_with_visibility_results_prefer_gql_media_interstitial_enabled: false,
  tweetypie_unmention_optimization_enabled: true,
  verified_phone_label_enabled: false,
  view_counts_everywhere_api_enabled: true,
};

/** Extra features of the user lookups (UserByScreenName, UsersByRestIds). */
export const X_WEB_USER_FEATURES: Record<string, boolean> = {
  hidden_profile_likes_enabled: true,
  hidden_profile_subscriptions_enabled: true,
  highlights_tweets_tab_ui_enabled: true,
  subscriptions_verification_info_is_identity_verified_enabled: false,
  subscriptions_verification_info_verified_since_enabled: true,
  responsive_web_twitter_article_notes_tab_enabled: false,
  subscriptions_feature_can_gift_premium: false,
  profile_label_improvements_pcf_label_in_post_enabled: false,
};

/** A cookie jar: name -> value, as the web client keeps them between calls. */
export type Cookies = Record<string, string>;

/** Takes the Set-Cookie headers of a response into `jar` (expired ones are removed). */
export function absorbCookies(jar: Cookies, headers: Headers): void {
  for (const line of headers.getSetCookie()) {
    const [pair, ...attributes] = line.split(';');
    const at = pair?.indexOf('=') ?? -1;
    if (!pair || at <= 0) continue;
    const name = pair.slice(0, at).trim();
    const value = pair.slice(at + 1).trim();
    const expired = attributes.some((a) => /^\s*max-age\s*=\s*0\s*$/i.test(a));
    if (expired || value === '') delete jar[name];
    else jar[name] = value;
  }
}

export function cookieHeader(jar: Cookies): string {
  return Object.entries(jar)
    .map(([name, value]) => `${name}=${value}`)
    .join('; ');
}

/** The headers of the web client: bearer, language, and the session's cookies and CSRF token. */
export function webHeaders(jar: Cookies, extra: Record<string, string> = {}): Headers {
  const headers = new Headers({
    authorization: `Bearer ${X_WEB_BEARER}`,
    'user-agent': X_WEB_USER_AGENT,
    'x-twitter-active-user': 'yes',
    'x-twitter-client-language': 'en',
    accept: '*/*',
    ...extra,
  });
  if (Object.keys(jar).length > 0) headers.set('cookie', cookieHeader(jar));
  if (jar.ct0) headers.set('x-csrf-token', jar.ct0);
  if (jar.auth_token) headers.set('x-twitter-auth-type', 'OAuth2Session');
  return headers;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function base32Bytes(secret: string): Buffer {
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of secret.replace(/=+$/, '').toUpperCase()) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error('The TOTP secret is not base32');
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/**
 * The RFC 6238 code (SHA-1, 6 digits, 30 s) of a base32 secret at `now`: what an authenticator
 * app shows, for X's LoginTwoFactorAuthChallenge. X's secrets are 80 bits, fewer than otplib's
 * guardrails take, so it is computed here.
 */
export function totpCode(secret: string, now: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(now / 30_000)));
  const digest = createHmac('sha1', base32Bytes(secret)).update(counter).digest();
  const offset = digest[digest.length - 1]! & 0x0f;
  const code = (digest.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return String(code).padStart(6, '0');
}
