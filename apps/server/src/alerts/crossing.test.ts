import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  INITIAL_HANDLE_MEMORY,
  parseHandleMemory,
  serializeHandleMemory,
  stepCrossing,
} from './crossing.js';
import type { HandleRuleMemory } from './types.js';

const HOUR = 3_600_000;
const COOLDOWN = 24 * HOUR;
const T0 = Date.parse('2026-03-01T00:00:00.000Z');

interface Observation {
  condition: boolean | null;
  at: number;
}

/**
 * Evaluations at non-decreasing times, up to two days apart (whole hours, so that the edges of
 * the cooldown come up often), conditions true, false or unknown.
 */
const observationsArb = fc
  .array(
    fc.record({
      condition: fc.constantFrom<boolean | null>(true, false, null),
      gapHours: fc.integer({ min: 0, max: 48 }),
    }),
    { maxLength: 40, size: 'medium' },
  )
  .map((steps) => {
    let at = T0;
    return steps.map(({ condition, gapHours }): Observation => {
      at += gapHours * HOUR;
      return { condition, at };
    });
  });
/** Random histories find the rare shapes (a crossing inside the cooldown) with more runs. */
const RUNS = { numRuns: 500 };

/** Runs the observations; a memory given as text goes through storage between every step. */
function run(
  observations: readonly Observation[],
  options: { throughStorage?: boolean; memory?: HandleRuleMemory } = {},
): { fired: boolean[]; memory: HandleRuleMemory } {
  let memory = options.memory ?? INITIAL_HANDLE_MEMORY;
  const fired = observations.map(({ condition, at }) => {
    const step = stepCrossing(memory, condition, at, COOLDOWN);
    memory = options.throughStorage
      ? parseHandleMemory(serializeHandleMemory(step.memory))
      : step.memory;
    return step.fire;
  });
  return { fired, memory };
}

const firedIndices = (fired: readonly boolean[]) =>
  fired.flatMap((fire, index) => (fire ? [index] : []));

/** The last observation before `index` whose condition was known, if any. */
function lastKnownBefore(observations: readonly Observation[], index: number) {
  return observations.slice(0, index).findLast((o) => o.condition !== null);
}

describe('once per crossing with a cooldown', () => {
  it('fires only while the condition holds', () => {
    fc.assert(
      fc.property(observationsArb, (observations) => {
        const { fired } = run(observations);
        for (const index of firedIndices(fired)) {
          expect(observations[index]!.condition).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it('never fires twice within the cooldown', () => {
    fc.assert(
      fc.property(observationsArb, (observations) => {
        const times = firedIndices(run(observations).fired).map((i) => observations[i]!.at);
        for (let i = 1; i < times.length; i++) {
          expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(COOLDOWN);
        }
      }),
      RUNS,
    );
  });

  it('never fires twice without seeing the condition false in between', () => {
    fc.assert(
      fc.property(observationsArb, (observations) => {
        const indices = firedIndices(run(observations).fired);
        for (let i = 1; i < indices.length; i++) {
          const between = observations.slice(indices[i - 1]! + 1, indices[i]);
          expect(between.some((o) => o.condition === false)).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it('fires at every rising edge outside the cooldown', () => {
    fc.assert(
      fc.property(observationsArb, (observations) => {
        const { fired } = run(observations);
        observations.forEach(({ condition, at }, index) => {
          const rising =
            condition === true && lastKnownBefore(observations, index)?.condition !== true;
          const lastFiring = firedIndices(fired.slice(0, index)).at(-1);
          const outsideCooldown =
            lastFiring === undefined || at - observations[lastFiring]!.at >= COOLDOWN;
          if (rising && outsideCooldown) expect(fired[index]).toBe(true);
        });
      }),
      RUNS,
    );
  });

  it('fires a crossing held back by the cooldown once the cooldown ends, if it still holds', () => {
    fc.assert(
      fc.property(observationsArb, (observations) => {
        const { fired } = run(observations);
        // A run of observations with no false in it: it holds at most one firing, and it holds
        // one when its condition is true after an earlier firing's cooldown (or with none).
        let runStart = 0;
        observations.forEach(({ condition }, index) => {
          if (condition === false) runStart = index + 1;
          if (condition !== true) return;
          const inRun = firedIndices(fired.slice(runStart, index + 1));
          expect(inRun.length).toBeLessThanOrEqual(1);
          const before = firedIndices(fired.slice(0, runStart)).at(-1);
          const free =
            before === undefined || observations[index]!.at - observations[before]!.at >= COOLDOWN;
          if (free) expect(inRun.length).toBe(1);
        });
      }),
      RUNS,
    );
  });

  it('ignores unknown conditions: they neither fire nor arm', () => {
    const fired = stepCrossing(INITIAL_HANDLE_MEMORY, true, T0, COOLDOWN);
    expect(fired).toEqual({ fire: true, memory: { armed: false, lastFiredAt: T0 } });
    const unknown = stepCrossing(fired.memory, null, T0 + 3 * COOLDOWN, COOLDOWN);
    expect(unknown).toEqual({ fire: false, memory: fired.memory });
    expect(stepCrossing(unknown.memory, true, T0 + 4 * COOLDOWN, COOLDOWN).fire).toBe(false);
    expect(stepCrossing(INITIAL_HANDLE_MEMORY, null, T0, COOLDOWN).fire).toBe(false);
  });

  it('counts a clock that went back as inside the cooldown', () => {
    const memory = { armed: true, lastFiredAt: T0 };
    expect(stepCrossing(memory, true, T0 - HOUR, COOLDOWN).fire).toBe(false);
    expect(stepCrossing(memory, true, T0 + COOLDOWN - 1, COOLDOWN).fire).toBe(false);
    expect(stepCrossing(memory, true, T0 + COOLDOWN, COOLDOWN).fire).toBe(true);
  });
});

describe('memory storage', () => {
  const memoryArb = fc.record({
    armed: fc.boolean(),
    lastFiredAt: fc.option(fc.integer({ min: 0, max: 4_102_444_800_000 }), { nil: null }),
  });

  it('reads back what it wrote', () => {
    fc.assert(
      fc.property(memoryArb, (memory) => {
        expect(parseHandleMemory(serializeHandleMemory(memory))).toEqual(memory);
      }),
    );
  });

  it('decides the same with a restart between any two evaluations', () => {
    fc.assert(
      fc.property(observationsArb, fc.nat(), (observations, cut) => {
        const straight = run(observations);
        expect(run(observations, { throughStorage: true }).fired).toEqual(straight.fired);
        // A restart: the first part runs, its memory is stored, a new process goes on from it.
        const at = observations.length === 0 ? 0 : cut % (observations.length + 1);
        const first = run(observations.slice(0, at));
        const stored = serializeHandleMemory(first.memory);
        const second = run(observations.slice(at), { memory: parseHandleMemory(stored) });
        expect([...first.fired, ...second.fired]).toEqual(straight.fired);
      }),
      RUNS,
    );
  });

  it('reads nothing stored as a rule never evaluated, and refuses anything else', () => {
    expect(parseHandleMemory(null)).toEqual(INITIAL_HANDLE_MEMORY);
    expect(parseHandleMemory('')).toEqual(INITIAL_HANDLE_MEMORY);
    expect(parseHandleMemory('{"armed":false,"lastFiredAt":5}')).toEqual({
      armed: false,
      lastFiredAt: 5,
    });
    expect(() => parseHandleMemory('{"armed":"yes","lastFiredAt":null}')).toThrow(
      'Not an alert rule memory',
    );
    expect(() => parseHandleMemory('[]')).toThrow('Not an alert rule memory');
    expect(() => parseHandleMemory('{"armed":true}')).toThrow('Not an alert rule memory');
  });
});
