/** A repeated test within this long of a successful one is not sent again. */
export const DUPLICATE_TEST_WINDOW_MS = 2_000;

/**
 * Repeated identical tests (a double click, a second tab) send one message: a test that is
 * running, or that succeeded less than `windowMs` ago (the spec's 2 s duplicate window), answers
 * the repeat too. A failure is forgotten at once, so "fix it and test again" always sends.
 */
export class DuplicateTestGuard {
  private readonly tests = new Map<string, Promise<void>>();

  constructor(private readonly windowMs = DUPLICATE_TEST_WINDOW_MS) {}

  run(key: string, send: () => Promise<void>): Promise<void> {
    const known = this.tests.get(key);
    if (known) return known;
    const started = send();
    this.tests.set(key, started);
    started.then(
      () => setTimeout(() => this.forget(key, started), this.windowMs).unref(),
      () => this.forget(key, started),
    );
    return started;
  }

  private forget(key: string, test: Promise<void>): void {
    if (this.tests.get(key) === test) this.tests.delete(key);
  }
}
