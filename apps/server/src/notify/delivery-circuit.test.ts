import { describe, expect, it } from 'vitest';
import { DeliveryCircuit } from './delivery-circuit.js';

function circuitAt(start = 1_000) {
  const clock = { t: start };
  const circuit = new DeliveryCircuit({ openAfter: 3, probeEveryMs: 60_000, now: () => clock.t });
  return { clock, circuit };
}

describe('delivery circuit', () => {
  it('opens after the set number of transient failures in a row', () => {
    const { circuit } = circuitAt();
    expect(circuit.recordFailure(false)).toBe(false);
    expect(circuit.recordFailure(false)).toBe(false);
    expect(circuit.state).toBe('closed');
    expect(circuit.recordFailure(false)).toBe(true);
    expect(circuit.state).toBe('open');
    expect(circuit.isDown).toBe(true);
  });

  it('starts counting again after a success', () => {
    const { circuit } = circuitAt();
    circuit.recordFailure(false);
    circuit.recordFailure(false);
    expect(circuit.recordSuccess()).toBe(false);
    expect(circuit.recordFailure(false)).toBe(false);
    expect(circuit.state).toBe('closed');
  });

  it('holds sends while open, lets one probe go when due, and closes when it gets through', () => {
    const { clock, circuit } = circuitAt();
    expect(circuit.admission(clock.t)).toEqual({ kind: 'send' });
    for (let i = 0; i < 3; i++) circuit.recordFailure(false);
    expect(circuit.admission(clock.t + 20_000)).toEqual({ kind: 'hold', readyInMs: 40_000 });
    expect(circuit.admission(clock.t + 60_000)).toEqual({ kind: 'probe' });
    circuit.probeStarted();
    expect(circuit.state).toBe('half-open');
    expect(circuit.admission(clock.t + 61_000)).toEqual({ kind: 'hold', readyInMs: Infinity });
    expect(circuit.recordSuccess()).toBe(true);
    expect(circuit.state).toBe('closed');
    expect(circuit.admission(clock.t)).toEqual({ kind: 'send' });
  });

  it('waits a whole probe period again after a failed probe', () => {
    const { clock, circuit } = circuitAt();
    for (let i = 0; i < 3; i++) circuit.recordFailure(false);
    clock.t += 60_000;
    circuit.probeStarted();
    expect(circuit.recordFailure(true)).toBe(false);
    circuit.probeEnded();
    expect(circuit.state).toBe('open');
    expect(circuit.admission(clock.t)).toEqual({ kind: 'hold', readyInMs: 60_000 });
  });

  it('opens at once when a probe fails', () => {
    const { circuit } = circuitAt();
    expect(circuit.recordFailure(true)).toBe(true);
    expect(circuit.isDown).toBe(true);
  });
});
