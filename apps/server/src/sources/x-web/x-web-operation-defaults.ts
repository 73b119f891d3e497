/**
 * The last-known values of every GraphQL operation the x-web source calls: used until x.com's
 * client bundle has been read (and whenever it cannot be), so a server that cannot reach the
 * bundle still has a working set. Compared with twscrape 0.20 (2026-08-07) and Nitter
 * (2026-08-22); where the two differ, the newer is taken. Refreshed from the bundle at run time
 * (x-web-operations.ts); an operator can pin values (X_WEB_OPERATIONS_FILE, Admin page).
 */
import type { XWebOperation } from '@perch/shared';

export interface OperationValues {
  queryId: string;
  features: Record<string, boolean>;
  fieldToggles: Record<string, boolean>;
}

/** The features x.com's client sends with every query (twscrape 0.20's set of 39). */
export const X_WEB_BASE_FEATURES: Record<string, boolean> = {
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
  premium_content_api_read_enabled: false,
  profile_label_improvements_pcf_label_in_post_enabled: false,
  responsive_web_edit_tweet_api_enabled: true,
  responsive_web_enhance_cards_enabled: false,
  responsive_web_graphql_exclude_directive_enabled: true,
  responsive_web_graphql_skip_user_profile_image_extensions_enabled: false,
  responsive_web_graphql_timeline_navigation_enabled: true,
  responsive_web_grok_analysis_button_from_backend: false,
  responsive_web_grok_analyze_button_fetch_trends_enabled: false,
  responsive_web_grok_analyze_post_followups_enabled: false,
  responsive_web_grok_community_note_auto_translation_is_enabled: false,
  responsive_web_grok_image_annotation_enabled: false,
  responsive_web_grok_imagine_annotation_enabled: false,
  responsive_web_grok_share_attachment_enabled: false,
  responsive_web_grok_show_grok_translated_post: true,
  responsive_web_jetfuel_frame: false,
  responsive_web_media_download_video_enabled: false,
  responsive_web_profile_redirect_enabled: true,
  responsive_web_twitter_article_tweet_consumption_enabled: true,
  rweb_tipjar_consumption_enabled: true,
  rweb_video_screen_enabled: true,
  rweb_video_timestamps_enabled: true,
  standardized_nudges_misinfo: true,
  tweet_awards_web_tipping_enabled: false,
  tweet_with_visibility_results_prefer_gql_limited_actions_policy_enabled: true,
  tweet_with_visibility_results_prefer_gql_media_interstitial_enabled: false,
  tweetypie_unmention_optimization_enabled: true,
  verified_phone_label_enabled: false,
  view_counts_everywhere_api_enabled: true,
};

/** The user lookups' own features (twscrape 0.20, user_by_login). */
const USER_FEATURES: Record<string, boolean> = {
  creator_subscriptions_tweet_preview_api_enabled: true,
  hidden_profile_likes_enabled: true,
  hidden_profile_subscriptions_enabled: true,
  highlights_tweets_tab_ui_enabled: true,
  profile_label_improvements_pcf_label_in_post_enabled: false,
  responsive_web_twitter_article_notes_tab_enabled: false,
  subscriptions_feature_can_gift_premium: false,
  subscriptions_verification_info_is_identity_verified_enabled: false,
  subscriptions_verification_info_verified_since_enabled: true,
};

/** Field toggles as Nitter (2026-08) sends them. */
const USER_TOGGLES = { withAuxiliaryUserLabels: true, withPayments: false };
const TIMELINE_TOGGLES = { withArticlePlainText: false, withArticleRichContentState: true };

export const X_WEB_DEFAULT_OPERATIONS: Record<XWebOperation, OperationValues> = {
  UserByScreenName: {
    queryId: 'Gb-d6r0vxPOADdG62OEBpQ',
    features: { ...X_WEB_BASE_FEATURES, ...USER_FEATURES },
    fieldToggles: USER_TOGGLES,
  },
  UserTweetsAndReplies: {
    queryId: 'qUpkZU6eN8MbtQb7rC_pYg',
    features: X_WEB_BASE_FEATURES,
    fieldToggles: TIMELINE_TOGGLES,
  },
  UserTweets: {
    queryId: 'SXVCYB8XHSS25nzIljNtZA',
    features: X_WEB_BASE_FEATURES,
    fieldToggles: TIMELINE_TOGGLES,
  },
  // No reference calls it any more (they read one user at a time): its id is resolved from the
  // bundle; this one is the last the project saw.
  UsersByRestIds: {
    queryId: 'itEhGywpgX9b3GJCzOtSrA',
    features: { ...X_WEB_BASE_FEATURES, ...USER_FEATURES },
    fieldToggles: USER_TOGGLES,
  },
  TweetResultsByRestIds: {
    queryId: 'Pho4sg8jLcrVlMeclMayrg',
    features: X_WEB_BASE_FEATURES,
    fieldToggles: TIMELINE_TOGGLES,
  },
};
