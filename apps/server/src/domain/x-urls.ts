/** A post's address on x.com, as every answer and message links it. */
export const postUrl = (username: string, postId: string): string =>
  `https://x.com/${username}/status/${postId}`;
