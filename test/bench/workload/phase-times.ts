// The recorded phase-time data set (phase-times.json): per harness, one row of phase durations per real session.
import type { TraceHarness } from '../../fixtures/traces/trace-fixture.js';

export const PHASES = ['create', 'prepare', 'agent', 'extract', 'evaluate', 'teardown'] as const;
export type Phase = (typeof PHASES)[number];

export interface PhaseTimes {
  provenance: Record<string, unknown>;
  phases: Phase[];
  /** Per harness, one entry per completed session: phase -> ms. */
  harnesses: Record<TraceHarness, Record<Phase, number>[]>;
}
