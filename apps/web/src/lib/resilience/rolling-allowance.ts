/**
 * At most `max` uses within a rolling window: a use stops counting once it is `windowMs` old by
 * the clock, and a refused use is not counted.
 */
export class RollingAllowance {
  private readonly max: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  private uses: number[] = [];

  constructor(max: number, windowMs: number, now: () => number = () => Date.now()) {
    this.max = max;
    this.windowMs = windowMs;
    this.now = now;
  }

  /** Uses still allowed in the current window. */
  remaining(): number {
    const cutoff = this.now() - this.windowMs;
    while (this.uses.length > 0 && (this.uses[0] ?? 0) <= cutoff) this.uses.shift();
    return this.max - this.uses.length;
  }

  /** Counts one use and returns true, or returns false (nothing counted) when none is left. */
  protected tryUse(): boolean {
    if (this.remaining() <= 0) return false;
    this.uses.push(this.now());
    return true;
  }

  /** Forgets every use. */
  protected clear(): void {
    this.uses = [];
  }
}
