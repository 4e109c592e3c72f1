import { describe, expect, it } from 'vitest';
import { DataError } from '../../../src/errors.js';
import { parseLogParserName } from '../../../src/eval/swebench/log-parsers.js';
import { resolveEvalSpec, resolveLogParser } from '../../../src/eval/swebench/resolve-eval-spec.js';
import type { SwebenchRecord } from '../../../src/eval/swebench/swebench-record.js';

const base: SwebenchRecord = {
  instance_id: 'x__y-1', repo: 'astropy/astropy', version: '1.3', base_commit: 'c', patch: '', test_patch: '', problem_statement: '',
  FAIL_TO_PASS: [], PASS_TO_PASS: [], extra: {},
};

describe('resolveEvalSpec', () => {
  it('uses the official table with conda activation', () => {
    expect(resolveEvalSpec(base)).toEqual({
      activate: ['source /opt/miniconda3/bin/activate', 'conda activate testbed'],
      repoDirectory: '/testbed',
      testCmd: 'pytest -rA -vv -o console_output_style=classic --tb=no',
      evalCommands: [],
      install: 'python -m pip install -e .[test] --verbose',
      logParser: 'pytest-v2',
      source: 'official',
    });
  });

  it('prefers polar_spec, with the repo parser as default', () => {
    const spec = resolveEvalSpec({ ...base, polar_spec: { testCmd: 'pytest', activate: ['. /venv/bin/activate'], evalCommands: [], repoDirectory: '/app' } });
    expect(spec).toEqual({ activate: ['. /venv/bin/activate'], repoDirectory: '/app', testCmd: 'pytest', evalCommands: [], logParser: 'pytest-v2', source: 'polar_spec' });
  });

  it('polar_spec of an unknown repo defaults to the pytest parser', () => {
    const record = { ...base, repo: 'me/tiny', polar_spec: { testCmd: 't', activate: [], evalCommands: [], repoDirectory: '/r' } };
    expect(resolveEvalSpec(record).logParser).toBe('pytest');
    expect(resolveLogParser(record)).toBe('pytest');
  });

  it('is not fooled by inherited property names', () => {
    expect(() => resolveEvalSpec({ ...base, repo: 'constructor' })).toThrow(DataError);
    expect(() => resolveEvalSpec({ ...base, version: 'toString' })).toThrow(/no spec for version "toString"/);
    expect(() => resolveLogParser({ ...base, repo: 'toString' })).toThrow(/no log parser for repo "toString"/);
  });
});

describe('parseLogParserName', () => {
  it.each([
    ['pytest-v2', 'pytest-v2'],
    ['parse_log_pytest_v2', 'pytest-v2'],
    ['parse_log_scikit', 'pytest-v2'],
    ['parse_log_requests', 'pytest-options'],
    ['parse_log_django', 'django'],
  ])('%s → %s', (name, expected) => {
    expect(parseLogParserName(name, 'here')).toBe(expected);
  });

  it('rejects unknown names, listing the known ones', () => {
    expect(() => parseLogParserName('toString', 'here')).toThrow(/here: unknown log parser "toString"/);
  });
});
