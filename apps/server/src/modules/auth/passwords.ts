import { hash, verify, type Algorithm } from '@node-rs/argon2';
import { COMMON_PASSWORDS, MESSAGES, PASSWORD_MIN_LENGTH } from '@perch/shared';
import type { Config } from '../../config.js';
import { AppError } from '../../lib/errors.js';

/** Argon2id's work per hash: memory in KiB and passes over it (one lane). */
export interface HashCost {
  memoryKib: number;
  iterations: number;
}

/**
 * The settings OWASP's Password Storage Cheat Sheet gives as equivalent minimums for argon2id
 * (one lane): more memory allows fewer passes. The default is the second, @node-rs/argon2's own.
 */
export const OWASP_MINIMUM_COSTS: readonly HashCost[] = [
  { memoryKib: 47_104, iterations: 1 },
  { memoryKib: 19_456, iterations: 2 },
  { memoryKib: 12_288, iterations: 3 },
  { memoryKib: 9_216, iterations: 4 },
  { memoryKib: 7_168, iterations: 5 },
];

/** The defaults of PASSWORD_HASH_MEMORY_KIB and PASSWORD_HASH_ITERATIONS (config.ts). */
export const DEFAULT_HASH_COST: HashCost = { memoryKib: 19_456, iterations: 2 };

/** Whether `cost` does at least the work of one of OWASP's minimums. */
export function meetsOwaspMinimum(cost: HashCost): boolean {
  return OWASP_MINIMUM_COSTS.some(
    (minimum) => cost.memoryKib >= minimum.memoryKib && cost.iterations >= minimum.iterations,
  );
}

function argon2Options({ memoryKib, iterations }: HashCost) {
  // Algorithm is an ambient const enum, which isolated modules cannot read: 2 is Argon2id.
  return {
    algorithm: 2 as Algorithm.Argon2id,
    memoryCost: memoryKib,
    timeCost: iterations,
    parallelism: 1,
  };
}

/** Hashes allowed to run at once, and to wait for a turn, in one process (PASSWORD_HASH_*). */
export interface HashLimits {
  concurrency: number;
  queue: number;
}

/** What the gate has done since the process started: read by tests and for diagnosis. */
export interface HashGateStats {
  /** Hashes running now. */
  running: number;
  /** Hashes waiting for a turn now. */
  waiting: number;
  /** The most that ever ran at once. */
  peakRunning: number;
  /** Hashes refused because the queue was full. */
  refused: number;
}

/** Seconds a refused sign-in is told to wait: the queue drains in far less. */
export const HASH_BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * Argon2 takes about 20 MB and tens of milliseconds of one core per hash, and runs on libuv's
 * thread pool, which file and DNS work shares. The gate lets `concurrency` hashes run at once and
 * `queue` more wait; past that it answers 503 with Retry-After at once instead of letting a burst
 * of sign-ins take every core and every pool thread.
 */
export class HashGate {
  private running = 0;
  private peakRunning = 0;
  private refused = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private limits: HashLimits) {}

  /** New limits; raising the concurrency starts waiting hashes at once. */
  configure(limits: HashLimits): void {
    this.limits = limits;
    while (this.running < this.limits.concurrency && this.waiting.length > 0) {
      this.start();
      this.waiting.shift()?.();
    }
  }

  stats(): HashGateStats {
    return {
      running: this.running,
      waiting: this.waiting.length,
      peakRunning: this.peakRunning,
      refused: this.refused,
    };
  }

  /** Runs `work` when a turn is free; throws the 503 when the queue is full. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.turn();
    try {
      return await work();
    } finally {
      this.done();
    }
  }

  private turn(): Promise<void> | undefined {
    if (this.running < this.limits.concurrency) {
      this.start();
      return undefined;
    }
    if (this.waiting.length >= this.limits.queue) {
      this.refused += 1;
      throw new AppError(503, 'SERVER_BUSY', MESSAGES.serverBusy, undefined, {
        'retry-after': String(HASH_BUSY_RETRY_AFTER_SECONDS),
      });
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private start(): void {
    this.running += 1;
    this.peakRunning = Math.max(this.peakRunning, this.running);
  }

  /** Hands the turn to the next waiting hash, unless the limit was lowered meanwhile. */
  private done(): void {
    this.running -= 1;
    if (this.running < this.limits.concurrency && this.waiting.length > 0) {
      this.start();
      this.waiting.shift()?.();
    }
  }
}

/** The defaults of PASSWORD_HASH_CONCURRENCY and PASSWORD_HASH_QUEUE (config.ts). */
export const DEFAULT_HASH_LIMITS: HashLimits = { concurrency: 2, queue: 32 };

/** One gate per process, as the cores it guards; the auth routes set its limits from config. */
export const passwordHashing = new HashGate(DEFAULT_HASH_LIMITS);

/** The cost of new hashes in this process; the auth routes and the CLI set it from config. */
let hashCost: HashCost = DEFAULT_HASH_COST;

/**
 * Sets this process's hashing from config: the gate's limits and the cost of new hashes. A hash
 * keeps the cost it was made with (its PHC string says which), so hashes made under another
 * cost still verify.
 */
export function configurePasswordHashing(
  config: Pick<
    Config,
    | 'PASSWORD_HASH_CONCURRENCY'
    | 'PASSWORD_HASH_QUEUE'
    | 'PASSWORD_HASH_MEMORY_KIB'
    | 'PASSWORD_HASH_ITERATIONS'
  >,
): void {
  passwordHashing.configure({
    concurrency: config.PASSWORD_HASH_CONCURRENCY,
    queue: config.PASSWORD_HASH_QUEUE,
  });
  hashCost = hashCostOf(config);
}

/** The cost of new hashes that `config` sets (PASSWORD_HASH_MEMORY_KIB, PASSWORD_HASH_ITERATIONS). */
export function hashCostOf(
  config: Pick<Config, 'PASSWORD_HASH_MEMORY_KIB' | 'PASSWORD_HASH_ITERATIONS'>,
): HashCost {
  return {
    memoryKib: config.PASSWORD_HASH_MEMORY_KIB,
    iterations: config.PASSWORD_HASH_ITERATIONS,
  };
}

export function hashPassword(password: string): Promise<string> {
  const options = argon2Options(hashCost);
  return passwordHashing.run(() => hash(password, options));
}

/**
 * Whether a stored hash was made at another cost than new hashes get (PASSWORD_HASH_*): sign-in,
 * which has the password, hashes it again, so a changed cost reaches every account that signs in.
 */
export function needsRehash(storedHash: string): boolean {
  const params = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(storedHash);
  return (
    !params ||
    Number(params[1]) !== hashCost.memoryKib ||
    Number(params[2]) !== hashCost.iterations ||
    params[3] !== '1'
  );
}

const sameCost = (a: HashCost, b: HashCost) =>
  a.memoryKib === b.memoryKib && a.iterations === b.iterations;

/** The dummy hash of unknown users, made at the current cost (made again if that changes). */
let dummyHash: { cost: HashCost; hash: Promise<string> } | undefined;

/**
 * Verifies a password. With no stored hash (unknown user) it still runs one verification
 * against a dummy hash made at the current cost, so both failures take the same time and reveal
 * nothing.
 */
export async function verifyPassword(
  storedHash: string | undefined,
  password: string,
): Promise<boolean> {
  if (!storedHash) {
    if (!dummyHash || !sameCost(dummyHash.cost, hashCost)) {
      dummyHash = { cost: hashCost, hash: hash('perch-dummy-password', argon2Options(hashCost)) };
    }
    const dummy = await dummyHash.hash;
    await passwordHashing.run(() => verify(dummy, password).catch(() => false));
    return false;
  }
  return passwordHashing.run(() => verify(storedHash, password).catch(() => false));
}

let commonPasswords: Promise<ReadonlySet<string>> | undefined;

/**
 * The list a new password is checked against: the ~49,000 most common passwords of public
 * breach corpora that zxcvbn-ts bundles (lower-case), with the strength meter's own list. Only
 * entries long enough to pass the length rule are kept. Loaded on first use (about 4 MB held).
 */
function commonPasswordList(): Promise<ReadonlySet<string>> {
  commonPasswords ??= import('@zxcvbn-ts/language-common').then(
    ({ dictionary }) =>
      new Set(
        [...dictionary['passwords-common'], ...COMMON_PASSWORDS].filter(
          (entry) => entry.length >= PASSWORD_MIN_LENGTH,
        ),
      ),
  );
  return commonPasswords;
}

/** True when the password, in any case, is on the list of common and breached passwords. */
export async function isCommonOrBreached(password: string): Promise<boolean> {
  return (await commonPasswordList()).has(password.toLowerCase());
}

/**
 * Refuses a new password (registration, password change, one set by an operator) that is on the
 * list: 400 PASSWORD_TOO_COMMON with the text the forms show under the field.
 */
export async function refuseCommonPassword(password: string): Promise<void> {
  if (await isCommonOrBreached(password)) {
    throw new AppError(400, 'PASSWORD_TOO_COMMON', MESSAGES.passwordTooCommon);
  }
}
