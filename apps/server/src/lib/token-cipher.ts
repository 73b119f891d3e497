/**
 * Encryption at rest for credentials Perch keeps (the user's X tokens, the PKCE verifier):
 * AES-256-GCM with a random 96-bit IV per value, stored as base64url of iv | tag | ciphertext
 * (the format noted in migration 0004).
 *
 * The key is derived with HKDF-SHA256 from SECRET_KEY, or, when that is unset, from a random
 * secret generated once and kept in DATA_DIR/secret.key (mode 0600). Every value is bound to
 * where it is stored (the `context`, used as additional authenticated data), so a ciphertext
 * copied into another row or column does not decrypt.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PRIVATE_FILE_MODE, ensurePrivateDir, restrictFile } from './private-files.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_FILE = 'secret.key';
const MIN_SECRET_LENGTH = 32;
/** HKDF info: the purpose of the derived key, so the same secret can serve other purposes. */
const KEY_PURPOSE = 'perch/stored-credentials/v1';

export interface TokenCipher {
  encrypt(plaintext: string, context: string): string;
  /** Throws TokenCipherError when the value was not made with this key and context. */
  decrypt(sealed: string, context: string): string;
}

export class TokenCipherError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenCipherError';
  }
}

export interface TokenCipherOptions {
  /** SECRET_KEY (32+ characters). */
  secretKey?: string;
  /** DATA_DIR: where secret.key is kept when no secretKey is given. */
  dataDir: string;
}

/**
 * The secret in DATA_DIR/secret.key, created on first use. The file is owner-only (0600) whatever
 * the umask, and one found readable by others is narrowed.
 */
export function readOrCreateKeyFile(dataDir: string): string {
  const file = path.join(dataDir, KEY_FILE);
  try {
    const secret = checkedSecret(fs.readFileSync(file, 'utf8').trim(), file);
    restrictFile(file);
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  ensurePrivateDir(dataDir);
  const secret = randomBytes(32).toString('base64url');
  try {
    // 'wx': when another process created it meanwhile, its key wins and is read below.
    fs.writeFileSync(file, `${secret}\n`, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    fs.chmodSync(file, PRIVATE_FILE_MODE);
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return checkedSecret(fs.readFileSync(file, 'utf8').trim(), file);
  }
}

function checkedSecret(secret: string, file: string): string {
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new TokenCipherError(`${file} must hold at least ${MIN_SECRET_LENGTH} characters`);
  }
  return secret;
}

/**
 * A cipher whose key is loaded on first use, so a server that never stores a credential never
 * creates the key file.
 */
export function createTokenCipher({ secretKey, dataDir }: TokenCipherOptions): TokenCipher {
  let key: Buffer | undefined;
  const keyOf = (): Buffer => {
    key ??= Buffer.from(
      hkdfSync('sha256', secretKey ?? readOrCreateKeyFile(dataDir), 'perch', KEY_PURPOSE, 32),
    );
    return key;
  };

  return {
    encrypt(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', keyOf(), iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
    },
    decrypt(sealed, context) {
      const raw = Buffer.from(sealed, 'base64url');
      if (raw.length < IV_BYTES + TAG_BYTES) throw new TokenCipherError('not an encrypted value');
      const decipher = createDecipheriv('aes-256-gcm', keyOf(), raw.subarray(0, IV_BYTES), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      try {
        return Buffer.concat([
          decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        throw new TokenCipherError(
          'the value does not decrypt with this key (SECRET_KEY changed?)',
        );
      }
    },
  };
}
