// Taps on the collector's tweet source in the simulated benches: every call and every error it
// throws is seen on its way, and the source answers as before.

/**
 * `source` with its four calls wrapped: `onCall(name)` before each call, `onError(name, error)`
 * for each error it throws (then thrown on).
 */
export function tappedSource(source, { onCall = () => {}, onError = () => {} }) {
  const wrap =
    (name) =>
    async (...args) => {
      onCall(name);
      try {
        return await source[name](...args);
      } catch (error) {
        onError(name, error);
        throw error;
      }
    };
  return {
    ...source,
    lookupUser: wrap('lookupUser'),
    usersByIds: wrap('usersByIds'),
    timeline: wrap('timeline'),
    tweetsByIds: wrap('tweetsByIds'),
  };
}
