import {
  HEALTH_MONITOR_COOLDOWN_MS,
  HEALTH_MONITOR_FIRST_CHECK_DELAY_MS,
  HEALTH_MONITOR_INTERVAL_MS,
  HEALTH_MONITOR_MESSAGES,
  HEALTH_MONITOR_WAIT_TIMEOUT_MS,
  REQUEST_TIMEOUT_MS,
} from '@perch/shared';
import { apiUrl } from '../api-client';

/** One health check's answer (doc 2 §7.8, §8.5). */
export interface HealthResult {
  success: boolean;
  /** HTTP status; 0 when no response arrived. */
  status: number;
  /** The envelope's `data` of a successful check. */
  data?: unknown;
  /** Server message, else error message, else 'Could not connect to API' on failure. */
  message?: string;
  checkedAt: number;
}

export interface HealthMonitorOptions {
  /** The browser boundary; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Milliseconds clock; defaults to Date.now. */
  now?: () => number;
}

function messageOf(body: unknown): string | undefined {
  if (typeof body === 'object' && body !== null && 'message' in body) {
    const { message } = body as { message: unknown };
    if (typeof message === 'string' && message) return message;
  }
  return undefined;
}

/**
 * Health checking (doc 1 §4, doc 2 §9.3): GET /api/v1/health, automatically 1 s after start and
 * then every 30 s. A check within 5 s of the last answer gets that answer unless forced; a caller
 * arriving while a check runs waits for it and gives up after 10 s with 'Health check timeout'.
 * Every new answer is pushed to subscribers.
 */
export class HealthMonitor {
  private readonly fetchFn: typeof fetch;
  private readonly now: () => number;
  private readonly listeners = new Set<() => void>();
  private last: HealthResult | undefined;
  private running: Promise<HealthResult> | undefined;
  private firstTimer: ReturnType<typeof setTimeout> | undefined;
  private intervalTimer: ReturnType<typeof setInterval> | undefined;

  constructor(options: HealthMonitorOptions = {}) {
    this.fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.now = options.now ?? Date.now;
  }

  /** Registers a listener called on every new answer; returns its removal. */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** The last answer, undefined before the first (for useSyncExternalStore). */
  getSnapshot = (): HealthResult | undefined => this.last;

  /** The last answer, or a failed one reading 'No previous result available'. */
  lastResult(): HealthResult {
    return (
      this.last ?? {
        success: false,
        status: 0,
        message: HEALTH_MONITOR_MESSAGES.noPreviousResult,
        checkedAt: this.now(),
      }
    );
  }

  /** Schedules the first automatic check 1 s from now, then one every 30 s. */
  start(): void {
    if (this.firstTimer !== undefined || this.intervalTimer !== undefined) return;
    this.firstTimer = setTimeout(() => {
      this.firstTimer = undefined;
      void this.check();
      this.intervalTimer = setInterval(() => void this.check(), HEALTH_MONITOR_INTERVAL_MS);
    }, HEALTH_MONITOR_FIRST_CHECK_DELAY_MS);
  }

  /** Stops the automatic checks. */
  stop(): void {
    clearTimeout(this.firstTimer);
    clearInterval(this.intervalTimer);
    this.firstTimer = undefined;
    this.intervalTimer = undefined;
  }

  /** Checks health; see the class description for cooldown and waiting. Never rejects. */
  check(options: { force?: boolean } = {}): Promise<HealthResult> {
    if (this.running) return this.waitForRunning(this.running);
    const last = this.last;
    if (!options.force && last && this.now() - last.checkedAt < HEALTH_MONITOR_COOLDOWN_MS) {
      return Promise.resolve(last);
    }
    const running = this.request().then((result) => {
      this.running = undefined;
      this.last = result;
      for (const listener of this.listeners) listener();
      return result;
    });
    this.running = running;
    return running;
  }

  private waitForRunning(running: Promise<HealthResult>): Promise<HealthResult> {
    return new Promise((resolve) => {
      const timer = setTimeout(
        () =>
          resolve({
            success: false,
            status: 0,
            message: HEALTH_MONITOR_MESSAGES.waitTimeout,
            checkedAt: this.now(),
          }),
        HEALTH_MONITOR_WAIT_TIMEOUT_MS,
      );
      void running.then((result) => {
        clearTimeout(timer);
        resolve(result);
      });
    });
  }

  private async request(): Promise<HealthResult> {
    const controller = new AbortController();
    const timeout = setTimeout(() => controller.abort(), REQUEST_TIMEOUT_MS);
    try {
      const response = await this.fetchFn(apiUrl('/health'), {
        method: 'GET',
        credentials: 'same-origin',
        signal: controller.signal,
      });
      const body: unknown = await response.json().catch(() => undefined);
      const success =
        response.ok &&
        typeof body === 'object' &&
        body !== null &&
        (body as { success?: unknown }).success === true;
      if (success) {
        return {
          success: true,
          status: response.status,
          data: (body as { data?: unknown }).data,
          checkedAt: this.now(),
        };
      }
      return {
        success: false,
        status: response.status,
        message: messageOf(body) ?? HEALTH_MONITOR_MESSAGES.unreachable,
        checkedAt: this.now(),
      };
    } catch (error) {
      const message = error instanceof Error && error.message ? error.message : undefined;
      return {
        success: false,
        status: 0,
        message: message ?? HEALTH_MONITOR_MESSAGES.unreachable,
        checkedAt: this.now(),
      };
    } finally {
      clearTimeout(timeout);
    }
  }
}
