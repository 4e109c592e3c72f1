// Eval-time part of MAP_REPO_VERSION_TO_SPECS_PY (swebench v4.1.0) for the 12 SWE-bench / Verified repos.
//
// Only what eval.sh uses is kept: test_cmd, eval_commands and install (re-run before the tests).
// pre_install, python, packages and pip_packages only shape the image build, which polar never does
// (it pulls the official images). Commands are copied character for character from
// swebench/harness/constants/python.py at v4.1.0. Two details differ from later upstream commits
// and follow v4.1.0 on purpose: the astropy 0.x-1.3 command has no `-p no:nose` (added in 2026),
// and scikit-learn 0.20-0.22 use `pytest -rA` (a later commit switched them to `pytest -v`).

/** The fields of one repo/version spec that the eval script needs. */
export interface RepoSpec {
  /** Test command; the test directives are appended to it, space separated. */
  readonly testCmd: string;
  /** Re-run after the model patch is applied (compiled packages are rebuilt). */
  readonly install: string;
  /** Extra lines run right after activation (django locale setup). */
  readonly evalCommands?: readonly string[];
}

// TEST_PYTEST is defined twice upstream; the second definition ("pytest -rA") is the one in effect.
const TEST_PYTEST = 'pytest -rA';
const TEST_ASTROPY_PYTEST = 'pytest -rA -vv -o console_output_style=classic --tb=no';
const TEST_DJANGO = './tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1';
const TEST_DJANGO_NO_PARALLEL = './tests/runtests.py --verbosity 2';
const TEST_SEABORN = 'pytest --no-header -rA';
const TEST_SPHINX = 'tox --current-env -epy39 -v --';
const TEST_SYMPY = "PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose";

const PIP_EDITABLE = 'python -m pip install -e .';

function each(versions: readonly string[], spec: RepoSpec): Record<string, RepoSpec> {
  return Object.fromEntries(versions.map((version) => [version, spec]));
}

const DJANGO_LOCALE_OLD = [
  'export LANG=en_US.UTF-8',
  'export LC_ALL=en_US.UTF-8',
  'export PYTHONIOENCODING=utf8',
  'export LANGUAGE=en_US:en',
];
const DJANGO_LOCALE_3 = [
  "sed -i '/en_US.UTF-8/s/^# //g' /etc/locale.gen && locale-gen",
  'export LANG=en_US.UTF-8',
  'export LANGUAGE=en_US:en',
  'export LC_ALL=en_US.UTF-8',
];

/** repo → version → spec. Versions are the dataset's `version` strings, e.g. "3.0", "v5.3". */
export const REPO_SPECS: Readonly<Record<string, Readonly<Record<string, RepoSpec>>>> = {
  'astropy/astropy': {
    ...each(['3.0', '3.1', '3.2', '4.1', '4.2', '4.3', '5.0', '5.1', '5.2', 'v5.3'], {
      testCmd: TEST_PYTEST,
      install: 'python -m pip install -e .[test] --verbose',
    }),
    ...each(['0.1', '0.2', '0.3', '0.4', '1.1', '1.2', '1.3'], {
      testCmd: TEST_ASTROPY_PYTEST,
      install: 'python -m pip install -e .[test] --verbose',
    }),
  },
  'django/django': {
    ...each(['1.7', '1.8', '1.10', '1.11', '2.0', '2.1', '2.2'], {
      testCmd: TEST_DJANGO,
      install: 'python setup.py install',
      evalCommands: DJANGO_LOCALE_OLD,
    }),
    '1.9': { testCmd: TEST_DJANGO_NO_PARALLEL, install: 'python setup.py install', evalCommands: DJANGO_LOCALE_OLD },
    ...each(['1.4', '1.5', '1.6'], { testCmd: TEST_DJANGO, install: 'python setup.py install' }),
    ...each(['3.0', '3.1', '3.2'], { testCmd: TEST_DJANGO, install: PIP_EDITABLE, evalCommands: DJANGO_LOCALE_3 }),
    ...each(['4.0', '4.1', '4.2', '5.0', '5.1', '5.2'], { testCmd: TEST_DJANGO, install: PIP_EDITABLE }),
  },
  'matplotlib/matplotlib': {
    ...each(['3.5', '3.6', '3.7', '3.1', '3.2', '3.3', '3.4', '3.0'], { testCmd: TEST_PYTEST, install: PIP_EDITABLE }),
    ...each(['3.8', '3.9'], {
      testCmd: TEST_PYTEST,
      install: 'python -m pip install --no-build-isolation -e ".[dev]"',
    }),
    ...each(['2.0', '2.1', '2.2', '1.0', '1.1', '1.2', '1.3', '1.4', '1.5'], {
      testCmd: TEST_PYTEST,
      install: 'python setup.py build; python setup.py install',
    }),
  },
  'mwaskom/seaborn': {
    '0.11': { testCmd: TEST_SEABORN, install: PIP_EDITABLE },
    ...each(['0.12', '0.13', '0.14'], { testCmd: TEST_SEABORN, install: 'python -m pip install -e .[dev]' }),
  },
  'pallets/flask': each(['2.0', '2.1', '2.2', '2.3', '3.0', '3.1'], { testCmd: TEST_PYTEST, install: PIP_EDITABLE }),
  'psf/requests': each(
    ['0.7', '0.8', '0.9', '0.11', '0.13', '0.14', '1.1', '1.2', '2.0', '2.2', '2.3', '2.4', '2.5', '2.7']
      .concat(['2.8', '2.9', '2.10', '2.11', '2.12', '2.17', '2.18', '2.19', '2.22', '2.26', '2.25', '2.27'])
      .concat(['2.31', '3.0']),
    { testCmd: TEST_PYTEST, install: 'python -m pip install .' },
  ),
  'pydata/xarray': each(
    ['0.12', '0.18', '0.19', '0.20', '2022.03', '2022.06', '2022.09', '2023.07', '2024.05'],
    { testCmd: TEST_PYTEST, install: PIP_EDITABLE },
  ),
  'pylint-dev/pylint': each(
    ['2.10', '2.11', '2.13', '2.14', '2.15', '2.16', '2.17', '2.8', '2.9', '3.0', '3.1', '3.2', '3.3', '4.0'],
    { testCmd: TEST_PYTEST, install: PIP_EDITABLE },
  ),
  'pytest-dev/pytest': each(
    ['4.4', '4.5', '4.6', '5.0', '5.1', '5.2', '5.3', '5.4', '6.0', '6.2', '6.3', '7.0', '7.1', '7.2']
      .concat(['7.4', '8.0', '8.1', '8.2', '8.3', '8.4']),
    { testCmd: TEST_PYTEST, install: PIP_EDITABLE },
  ),
  'scikit-learn/scikit-learn': each(['0.20', '0.21', '0.22', '1.3', '1.4', '1.5', '1.6'], {
    testCmd: TEST_PYTEST,
    install: 'python -m pip install -v --no-use-pep517 --no-build-isolation -e .',
  }),
  'sphinx-doc/sphinx': each(
    ['1.5', '1.6', '1.7', '1.8', '2.0', '2.1', '2.2', '2.3', '2.4', '3.0', '3.1', '3.2', '3.3', '3.4']
      .concat(['3.5', '4.0', '4.1', '4.2', '4.3', '4.4', '4.5', '5.0', '5.1', '5.2', '5.3', '6.0', '6.2'])
      .concat(['7.0', '7.1', '7.2', '7.3', '7.4', '8.0', '8.1']),
    { testCmd: TEST_SPHINX, install: 'python -m pip install -e .[test]' },
  ),
  'sympy/sympy': each(
    ['0.7', '1.0', '1.1', '1.10', '1.11', '1.12', '1.2', '1.4', '1.5', '1.6', '1.7', '1.8', '1.9']
      .concat(['1.13', '1.14']),
    { testCmd: TEST_SYMPY, install: PIP_EDITABLE },
  ),
};

/** Repositories whose F2P/P2P grading is fail-only (v4.1.0 FAIL_ONLY_REPOS; all JavaScript). */
export const FAIL_ONLY_REPOS: ReadonlySet<string> = new Set(['chartjs/Chart.js', 'processing/p5.js', 'markedjs/marked']);
