/** x.com's client bundle as data: operations in both builds' forms, and the page's values. */
import { describe, expect, it } from 'vitest';
import {
  featureValuesInPage,
  operationValues,
  operationsInScript,
  readClientOperations,
} from './x-web-bundle.js';
import { X_WEB_DEFAULT_OPERATIONS } from './x-web-operation-defaults.js';

/** The legacy build (webpack): a chunk of modules, each exporting one operation. */
const LEGACY_CHUNK =
  '(self.webpackChunk_twitter_responsive_web=self.webpackChunk_twitter_responsive_web||[]).push([[20],{' +
  '45678:e=>{e.exports={queryId:"Legacy-UserByScreen_1",operationName:"UserByScreenName",operationType:"query",' +
  'metadata:{featureSwitches:["hidden_profile_subscriptions_enabled","rweb_tipjar_consumption_enabled","brand_new_switch"],' +
  'fieldToggles:["withAuxiliaryUserLabels","withBrandNewToggle"]}}},' +
  '45679:e=>{e.exports={queryId:"LegacyUserTweets0001",operationName:"UserTweets",operationType:"query",' +
  'metadata:{featureSwitches:[],fieldToggles:[]}}},' +
  '45680:e=>{e.exports={queryId:"LegacyCreateTweet001",operationName:"CreateTweet",operationType:"mutation",' +
  'metadata:{featureSwitches:["a_b"],fieldToggles:[]}}}}]);';

/** The current build (Vite): `params` objects, `metadata` before or after `name`. */
const VITE_MODULE = [
  'import{a as r}from"./vendor.B1x2.js";',
  'const t={fragment:{argumentDefinitions:[{name:"userId"}],kind:"Fragment",name:"UserTweetsQuery"},',
  'params:{id:"ViteUserTweets-00001",metadata:{featureSwitches:["rweb_video_screen_enabled","x_new_switch"],',
  'fieldToggles:["withArticlePlainText","withArticleRichContentState","withNewToggle"]},',
  'name:"UserTweets",operationKind:"query",text:null}};',
  "const u={params:{id:'ViteByRestIds_000001',name:'UsersByRestIds',operationKind:'query',",
  "metadata:{featureSwitches:['hidden_profile_likes_enabled'],fieldToggles:[]},text:null}};",
  // A nested `name` (here inside metadata) is not the operation's.
  'const v={params:{id:"ViteTweetsByIds00001",metadata:{featureSwitches:[],fieldToggles:[],',
  'extra:{name:"Decoy",list:["}"]}},name:"TweetResultsByRestIds",operationKind:"query",text:null}};',
  'export{t as default,u,v};',
].join('');

describe('operationsInScript', () => {
  it('reads the legacy form: query id, name and switch names, mutations included', () => {
    const found = operationsInScript(LEGACY_CHUNK);
    expect(found.get('UserByScreenName')).toEqual({
      queryId: 'Legacy-UserByScreen_1',
      featureSwitches: [
        'hidden_profile_subscriptions_enabled',
        'rweb_tipjar_consumption_enabled',
        'brand_new_switch',
      ],
      fieldToggles: ['withAuxiliaryUserLabels', 'withBrandNewToggle'],
    });
    expect(found.get('UserTweets')).toEqual({
      queryId: 'LegacyUserTweets0001',
      featureSwitches: [],
      fieldToggles: [],
    });
    expect(found.get('CreateTweet')?.queryId).toBe('LegacyCreateTweet001');
  });

  it('reads the current form with metadata before or after the name, in any quotes', () => {
    const found = operationsInScript(VITE_MODULE);
    expect(found.get('UserTweets')).toEqual({
      queryId: 'ViteUserTweets-00001',
      featureSwitches: ['rweb_video_screen_enabled', 'x_new_switch'],
      fieldToggles: ['withArticlePlainText', 'withArticleRichContentState', 'withNewToggle'],
    });
    expect(found.get('UsersByRestIds')).toEqual({
      queryId: 'ViteByRestIds_000001',
      featureSwitches: ['hidden_profile_likes_enabled'],
      fieldToggles: [],
    });
    expect(found.get('TweetResultsByRestIds')?.queryId).toBe('ViteTweetsByIds00001');
    expect(found.has('Decoy')).toBe(false);
    expect(found.has('UserTweetsQuery')).toBe(false);
  });

  it('keeps the first declaration of a name and ignores what is not one', () => {
    const twice =
      'a={params:{id:"FirstId00000000001",metadata:{featureSwitches:[],fieldToggles:[]},name:"UserTweets",operationKind:"query"}};' +
      'b={params:{id:"SecondId0000000002",metadata:{featureSwitches:[],fieldToggles:[]},name:"UserTweets",operationKind:"query"}};';
    expect(operationsInScript(twice).get('UserTweets')?.queryId).toBe('FirstId00000000001');
    expect(operationsInScript('const queryId="x";function f(){return{queryId:"abc"}}').size).toBe(
      0,
    );
    expect(operationsInScript('params:{id:"NeverClosed",name:"UserTweets"').size).toBe(0);
    expect(operationsInScript('')).toEqual(new Map());
  });
});

describe('featureValuesInPage', () => {
  const state = {
    optimist: [],
    featureSwitch: {
      defaultConfig: {
        rweb_tipjar_consumption_enabled: { value: false },
        brand_new_switch: { value: true },
        a_number: { value: 5 },
        'not a name': { value: true },
      },
      user: { config: { rweb_tipjar_consumption_enabled: { value: true } }, impressions: {} },
      debug: {},
      customOverrides: {},
    },
    settings: { remote: { text: '"featureSwitch":{}' } },
  };

  it('reads the defaults and the signed-in user’s values over them, booleans only', () => {
    const html = `<html><body><script nonce="n">window.__INITIAL_STATE__=${JSON.stringify(state)};window.__META_DATA__={};</script></body></html>`;
    expect(featureValuesInPage(html)).toEqual({
      rweb_tipjar_consumption_enabled: true,
      brand_new_switch: true,
    });
  });

  it('falls back to the pairs when the state is not JSON, and is empty without one', () => {
    const html =
      '<script>window.__INITIAL_STATE__={featureSwitch:{"defaultConfig":{"a_b":{"value":true},"c_d":{"value":false}},' +
      'user:{config:{"a_b":{"value":false}}}}};</script>';
    expect(featureValuesInPage(html)).toEqual({ a_b: false, c_d: false });
    expect(featureValuesInPage('<html><body>Signed out</body></html>')).toEqual({});
  });
});

describe('operationValues', () => {
  it('takes page values, else the shipped ones, else false; toggles shipped or false', () => {
    const values = operationValues(
      'UserTweets',
      {
        queryId: 'ViteUserTweets-00001',
        featureSwitches: [
          'brand_new_switch',
          'rweb_video_screen_enabled',
          'hidden_profile_likes_enabled',
          'never_heard_of',
        ],
        fieldToggles: ['withArticleRichContentState', 'withNewToggle'],
      },
      { brand_new_switch: true, rweb_video_screen_enabled: false },
    );
    expect(values).toEqual({
      queryId: 'ViteUserTweets-00001',
      features: {
        brand_new_switch: true,
        rweb_video_screen_enabled: false,
        // Shipped for the user lookups, not for UserTweets: still known.
        hidden_profile_likes_enabled: true,
        never_heard_of: false,
      },
      fieldToggles: { withArticleRichContentState: true, withNewToggle: false },
    });
    expect(X_WEB_DEFAULT_OPERATIONS.UserTweets.fieldToggles.withArticleRichContentState).toBe(true);
  });
});

/** A fetch that serves `pages` by URL and records what was asked. */
function fetchOf(pages: Record<string, string>) {
  const asked: { url: string; cookie: string | null }[] = [];
  const fake: typeof fetch = (input, init) => {
    const url = String(input);
    asked.push({ url, cookie: new Headers(init?.headers).get('cookie') });
    const body = pages[url];
    const type = url.endsWith('.js') ? 'text/javascript' : 'text/html';
    return Promise.resolve(
      body === undefined
        ? new Response('Not found', { status: 404, headers: { 'content-type': 'text/plain' } })
        : new Response(body, { status: 200, headers: { 'content-type': type } }),
    );
  };
  return { fetch: fake, asked };
}

describe('readClientOperations', () => {
  const ASSETS = 'https://abs.twimg.com/responsive-web/client-web/';

  it('reads a legacy (webpack) page: its mapped chunks and main script', async () => {
    const state = { featureSwitch: { defaultConfig: { brand_new_switch: { value: true } } } };
    const page = [
      '<!DOCTYPE html><html><head>',
      `<link rel="preload" as="script" crossorigin="anonymous" href="${ASSETS}main.e46a7b2a.js" nonce="n"/>`,
      '</head><body>',
      `<script nonce="n">window.__INITIAL_STATE__=${JSON.stringify(state)};</script>`,
      '<script nonce="n">!function(){var e={};e.u=e=>e+"."+{20:"bundle.UserProfile",31:"bundle.Timeline"}[e]+"."+{20:"a1b2c3d",31:"0f1e2d3"}[e]+"a.js"}();</script>',
      '</body></html>',
    ].join('');
    const { fetch, asked } = fetchOf({
      'https://x.test/home': page,
      [`${ASSETS}main.e46a7b2a.js`]: 'window.main=1;',
      [`${ASSETS}bundle.UserProfile.a1b2c3da.js`]: LEGACY_CHUNK,
      [`${ASSETS}bundle.Timeline.0f1e2d3a.js`]: 'window.timeline=1;',
    });
    const read = await readClientOperations(
      { baseUrl: 'https://x.test/', fetch },
      { auth_token: 'a'.repeat(40), ct0: 'c'.repeat(32) },
      ['UserByScreenName', 'UserTweets', 'UsersByRestIds'],
    );
    expect(read.operations.UserByScreenName).toEqual({
      queryId: 'Legacy-UserByScreen_1',
      features: {
        hidden_profile_subscriptions_enabled: true,
        rweb_tipjar_consumption_enabled: true,
        brand_new_switch: true,
      },
      fieldToggles: { withAuxiliaryUserLabels: true, withBrandNewToggle: false },
    });
    expect(read.operations.UserTweets?.queryId).toBe('LegacyUserTweets0001');
    expect(read.missing).toEqual(['UsersByRestIds']);
    expect(read.scripts).toBe(3);
    expect(read.pageFeatures).toEqual({ brand_new_switch: true });
    // The page is read as the session's browser; the scripts are public.
    expect(asked[0]).toEqual({
      url: 'https://x.test/home',
      cookie: `auth_token=${'a'.repeat(40)}; ct0=${'c'.repeat(32)}`,
    });
    expect(asked.slice(1).every((a) => a.cookie === null)).toBe(true);
  });

  it('follows a Vite page’s imports and stops once every wanted operation is found', async () => {
    const page =
      '<html><head><script type="module" crossorigin src="/x-web/main.Ab12.js"></script>' +
      '<link rel="modulepreload" href="/x-web/vendor.B1x2.js"></head><body></body></html>';
    const { fetch, asked } = fetchOf({
      'https://x.test/home': page,
      'https://x.test/x-web/main.Ab12.js': 'import("./profile.C3.js");',
      'https://x.test/x-web/vendor.B1x2.js': 'export const a=1;',
      'https://x.test/x-web/profile.C3.js': `${VITE_MODULE}import("./later.D4.js");`,
      'https://x.test/x-web/later.D4.js': 'export const later=1;',
    });
    const read = await readClientOperations({ baseUrl: 'https://x.test', fetch }, null, [
      'UserTweets',
      'UsersByRestIds',
    ]);
    expect(read.operations.UserTweets?.queryId).toBe('ViteUserTweets-00001');
    expect(read.operations.UsersByRestIds?.features).toEqual({
      hidden_profile_likes_enabled: true,
    });
    expect(read.missing).toEqual([]);
    expect(asked.map((a) => a.url)).not.toContain('https://x.test/x-web/later.D4.js');
    expect(asked[0]?.cookie).toBeNull();
  });
});
