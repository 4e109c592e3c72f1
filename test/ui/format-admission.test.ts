// The dashboard's admission line and the --admission flag's parser.
import { describe, expect, it } from 'vitest';
import { ADMISSION_FLAG_HELP, DEFAULT_ADMISSION_MODE, parseAdmissionMode } from '../../src/cli/admission-option.js';
import { DEFAULT_ADMISSION } from '../../src/rollout/admission/session-admission.js';
import { UsageError } from '../../src/errors.js';
import { admissionLine, replicaAdmissionLine } from '../../src/ui/format-admission.js';

describe('admissionLine', () => {
  it('fixed: agents of the limit and the queue', () => {
    expect(admissionLine({ mode: 'fixed', active: 3, waiting: 5, limit: 4, target: null, hold: null, hostCap: null })).toBe('fixed: 3 of 4 agents, 5 waiting');
  });

  it('engine: the controller\'s target, the host cap and the gate', () => {
    expect(admissionLine({ mode: 'engine', active: 10, waiting: 3, limit: 12, target: 12, hold: 'kv-high', hostCap: 37 })).toBe('engine: 10 of 12 agents (target 12, host 37), 3 waiting, gate closed: kv-high');
    expect(admissionLine({ mode: 'engine', active: 2, waiting: 0, limit: 2, target: null, hold: null, hostCap: null })).toBe('engine: 2 of 2 agents (target ?, host ?), 0 waiting, gate open');
  });
});

describe('replicaAdmissionLine', () => {
  it('one replica under engine admission: its agents of its target, its KV usage, queue, preemptions and gate', () => {
    expect(replicaAdmissionLine({ replica: 'http://gpu-1:8000/v1', active: 4, target: 5, hold: null, kvUsage: 0.823, waiting: 0, preemptions: 3 })).toBe(
      'http://gpu-1:8000/v1  4 of 5 agents, KV 82%, 0 waiting, 3 preempted, gate open',
    );
    expect(replicaAdmissionLine({ replica: 'http://gpu-2:8000/v1', active: 2, target: 2, hold: 'kv-high', kvUsage: null, waiting: null, preemptions: null })).toBe(
      'http://gpu-2:8000/v1  2 of 2 agents, KV ?, ? waiting, ? preempted, gate closed: kv-high',
    );
  });
});

describe('--admission', () => {
  it('takes fixed or engine, refuses anything else with the choices', () => {
    expect(parseAdmissionMode('fixed')).toBe('fixed');
    expect(parseAdmissionMode('engine')).toBe('engine');
    expect(() => parseAdmissionMode('auto')).toThrow(UsageError);
    expect(() => parseAdmissionMode('auto')).toThrow('--admission must be fixed or engine, got "auto"');
  });

  it('the help names the mode the library runs without the flag: engine', () => {
    expect(DEFAULT_ADMISSION_MODE).toBe(DEFAULT_ADMISSION);
    expect(DEFAULT_ADMISSION).toBe('engine');
    expect(ADMISSION_FLAG_HELP).toMatch(/\(default: engine\)$/);
  });
});
