/**
 * The ids of the demo source, all reversible so a fresh process understands them:
 *
 * - user id: the handle itself, read as a base-38 number (a-z, 0-9, _), in decimal. Up to 19
 *   digits for handles of 12 characters or fewer; longer handles give longer (still decimal) ids.
 * - tweet id: an X-style snowflake `(ms since 2010-11-04) << 22 | handleTag << 12 | sequence`, so
 *   ids grow with time, compare as BigInt, fit in 64 bits and encode their own creation time.
 * - cursor: the id a page continues below, base64url-encoded.
 */

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
/** X's snowflake epoch (2010-11-04T01:42:54.657Z). */
const SNOWFLAKE_EPOCH = 1_288_834_974_657;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789_';

/** Encodes a (lower-case) handle as its reversible decimal user id. */
export function demoUserId(handle: string): string {
  let value = 0n;
  for (const char of handle.toLowerCase()) value = value * 38n + BigInt(ALPHABET.indexOf(char) + 1);
  return value.toString();
}

/** Decodes a demo user id back to its handle, or null when it is not one. */
export function handleFromUserId(xUserId: string): string | null {
  if (!/^[1-9][0-9]{0,29}$/.test(xUserId)) return null;
  let value = BigInt(xUserId);
  let handle = '';
  while (value > 0n) {
    const digit = Number(value % 38n);
    if (digit === 0) return null;
    handle = ALPHABET[digit - 1] + handle;
    value /= 38n;
  }
  return handle.length <= 15 ? handle : null;
}

export function snowflake(ms: number, tag: number, seq: number): bigint {
  return (BigInt(ms - SNOWFLAKE_EPOCH) << 22n) | BigInt((tag << 12) | seq);
}

export function snowflakeMs(id: bigint): number {
  return Number(id >> 22n) + SNOWFLAKE_EPOCH;
}

/** The 10-bit handle tag of a snowflake. */
export function snowflakeTag(id: bigint): number {
  return Number((id >> 12n) & 0x3ffn);
}

/** The 12-bit sequence of a snowflake (its slot's index in its hour). */
export function snowflakeSeq(id: bigint): number {
  return Number(id & 0xfffn);
}

export function encodeCursor(id: bigint): string {
  return Buffer.from(`demo:${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): bigint {
  const match = /^demo:([0-9]{1,20})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match?.[1]) throw new Error(`Invalid demo cursor: ${cursor}`);
  return BigInt(match[1]);
}
