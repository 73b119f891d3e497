import type { HandleRuleMemory } from './types.js';

/**
 * "Once per crossing, with a cooldown", for rules about a handle's state (followers, silence),
 * which stay true for a while once they become true:
 *
 * - A rule fires when its condition is true and it is armed: it never fired, or its condition was
 *   seen false after it last fired. Firing disarms it; only a false condition arms it again, so a
 *   condition that stays true fires once.
 * - It does not fire within the cooldown after its last firing. A crossing that comes inside the
 *   cooldown stays armed and fires at the first evaluation after the cooldown if the condition
 *   still holds (a person hears about it late rather than never).
 * - An unknown condition (no data yet) changes nothing: it neither fires nor arms.
 */

/** A rule that has never been evaluated. */
export const INITIAL_HANDLE_MEMORY: HandleRuleMemory = Object.freeze({
  armed: true,
  lastFiredAt: null,
});

export interface CrossingStep {
  fire: boolean;
  memory: HandleRuleMemory;
}

/** One evaluation: whether the rule fires now, and what it remembers afterwards. */
export function stepCrossing(
  memory: HandleRuleMemory,
  condition: boolean | null,
  now: number,
  cooldownMs: number,
): CrossingStep {
  if (condition === null) return { fire: false, memory };
  if (!condition) return { fire: false, memory: { ...memory, armed: true } };
  if (!memory.armed || inCooldown(memory, now, cooldownMs)) return { fire: false, memory };
  return { fire: true, memory: { armed: false, lastFiredAt: now } };
}

/** A clock that went back counts as inside the cooldown, so it cannot cause a second firing. */
function inCooldown(memory: HandleRuleMemory, now: number, cooldownMs: number): boolean {
  return memory.lastFiredAt !== null && now - memory.lastFiredAt < cooldownMs;
}

/** The memory as stored (a small JSON object). */
export function serializeHandleMemory(memory: HandleRuleMemory): string {
  return JSON.stringify({ armed: memory.armed, lastFiredAt: memory.lastFiredAt });
}

/**
 * The memory from its stored text; nothing stored reads as a rule never evaluated. Anything that
 * is not a memory is refused rather than read as "armed", which could fire a rule twice.
 */
export function parseHandleMemory(text: string | null | undefined): HandleRuleMemory {
  if (text === null || text === undefined || text === '') return INITIAL_HANDLE_MEMORY;
  const value: unknown = JSON.parse(text);
  if (isHandleMemory(value)) return { armed: value.armed, lastFiredAt: value.lastFiredAt };
  throw new Error(`Not an alert rule memory: ${text.slice(0, 100)}`);
}

function isHandleMemory(value: unknown): value is HandleRuleMemory {
  if (typeof value !== 'object' || value === null) return false;
  const { armed, lastFiredAt } = value as Record<string, unknown>;
  return (
    typeof armed === 'boolean' &&
    (lastFiredAt === null || (typeof lastFiredAt === 'number' && Number.isFinite(lastFiredAt)))
  );
}
