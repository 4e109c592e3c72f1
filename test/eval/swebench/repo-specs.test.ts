// Spot checks of the spec table against swebench v4.1.0 constants/python.py, and coverage of Verified versions.
import { describe, expect, it } from 'vitest';
import { REPO_LOG_PARSERS } from '../../../src/eval/swebench/log-parsers.js';
import { REPO_SPECS } from '../../../src/eval/swebench/repo-specs.js';

describe('REPO_SPECS', () => {
  it.each([
    ['astropy/astropy', '5.2', 'pytest -rA', 'python -m pip install -e .[test] --verbose', undefined],
    ['astropy/astropy', 'v5.3', 'pytest -rA', 'python -m pip install -e .[test] --verbose', undefined],
    ['django/django', '3.0', './tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1', 'python -m pip install -e .', 4],
    ['django/django', '2.2', './tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1', 'python setup.py install', 4],
    ['django/django', '4.2', './tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1', 'python -m pip install -e .', undefined],
    ['matplotlib/matplotlib', '3.5', 'pytest -rA', 'python -m pip install -e .', undefined],
    ['matplotlib/matplotlib', '3.9', 'pytest -rA', 'python -m pip install --no-build-isolation -e ".[dev]"', undefined],
    ['mwaskom/seaborn', '0.11', 'pytest --no-header -rA', 'python -m pip install -e .', undefined],
    ['mwaskom/seaborn', '0.12', 'pytest --no-header -rA', 'python -m pip install -e .[dev]', undefined],
    ['pallets/flask', '2.3', 'pytest -rA', 'python -m pip install -e .', undefined],
    ['psf/requests', '2.26', 'pytest -rA', 'python -m pip install .', undefined],
    ['pydata/xarray', '2022.06', 'pytest -rA', 'python -m pip install -e .', undefined],
    ['pylint-dev/pylint', '2.15', 'pytest -rA', 'python -m pip install -e .', undefined],
    ['pytest-dev/pytest', '5.4', 'pytest -rA', 'python -m pip install -e .', undefined],
    ['scikit-learn/scikit-learn', '0.22', 'pytest -rA', 'python -m pip install -v --no-use-pep517 --no-build-isolation -e .', undefined],
    ['sphinx-doc/sphinx', '3.5', 'tox --current-env -epy39 -v --', 'python -m pip install -e .[test]', undefined],
    ['sympy/sympy', '1.10', "PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose", 'python -m pip install -e .', undefined],
  ])('%s %s', (repo, version, testCmd, install, evalCommandCount) => {
    const spec = REPO_SPECS[repo]?.[version];
    expect(spec?.testCmd).toBe(testCmd);
    expect(spec?.install).toBe(install);
    expect(spec?.evalCommands?.length).toBe(evalCommandCount);
  });

  // Versions that occur in SWE-bench Verified (from its 500 rows, as listed in common harness ports).
  const verified: Record<string, string[]> = {
    'astropy/astropy': ['1.3', '3.0', '3.1', '4.2', '4.3', '5.0', '5.1', '5.2', 'v5.3'],
    'django/django': ['3.0', '3.1', '3.2', '4.0', '4.1', '4.2', '5.0'],
    'matplotlib/matplotlib': ['3.0', '3.3', '3.4', '3.5', '3.6', '3.7'],
    'mwaskom/seaborn': ['0.12'],
    'pallets/flask': ['2.3'],
    'psf/requests': ['0.14', '1.2', '2.0', '2.10', '2.12', '2.3', '2.4', '2.5', '2.7', '2.8', '3.0'],
    'pydata/xarray': ['0.12', '0.18', '0.19', '2022.03', '2022.06', '2022.09', '2023.07'],
    'pylint-dev/pylint': ['2.13', '2.14', '2.15', '3.0'],
    'pytest-dev/pytest': ['4.4', '5.0', '5.2', '5.4', '6.0', '6.2', '7.0', '7.2', '8.0'],
    'scikit-learn/scikit-learn': ['0.20', '0.21', '0.22', '1.3'],
    'sphinx-doc/sphinx': ['3.0', '3.1', '3.2', '3.3', '3.4', '3.5', '4.0', '4.1', '4.2', '4.3', '4.4', '5.0', '5.1', '5.2', '6.2', '7.1', '7.2'],
    'sympy/sympy': ['1.0', '1.1', '1.10', '1.11', '1.12', '1.13', '1.2', '1.4', '1.5', '1.6', '1.7', '1.8', '1.9'],
  };
  it('covers every Verified repo/version and names a parser for each repo', () => {
    for (const [repo, versions] of Object.entries(verified)) {
      expect(REPO_LOG_PARSERS[repo], repo).toBeDefined();
      for (const version of versions) expect(REPO_SPECS[repo]?.[version], `${repo} ${version}`).toBeDefined();
    }
    expect(Object.keys(REPO_SPECS).sort()).toEqual(Object.keys(verified).sort());
  });
});
