# Runs inside the tool-times container (record-tool-times.ts pipes it to `python3 -`): plans the commands an
# agent runs on one repository (seeded), runs each through bash as a harness's shell tool does, and prints one
# JSON line per command with its wall time. Edits are reverted after each timed edit (untimed), so every
# command sees the base commit.
import ast
import json
import os
import random
import signal
import subprocess
import sys
import time

CONFIG = json.loads(sys.argv[1])
REPO = CONFIG["repo"]
ROOT = "/repos/" + REPO
COUNTS = CONFIG["counts"]
CAP_S = CONFIG["capSeconds"]
OUTPUT_CAP = CONFIG["outputCapChars"]
rng = random.Random(CONFIG["seed"])


def git_files():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines() if line]


FILES = git_files()
PY = [f for f in FILES if f.endswith(".py")]
SOURCE = [f for f in PY if "/tests/" not in f and not f.startswith("tests/") and "/test_" not in f]
DIRS = sorted({os.path.dirname(f) for f in FILES if os.path.dirname(f)})


def test_files():
    if REPO == "django":
        return [f for f in PY if f.startswith("tests/") and os.path.basename(f).startswith("test")]
    if REPO == "sympy":
        return [f for f in PY if "/tests/test_" in f]
    # Pylint's benchmark, primer and profile suites need packages Debian does not ship (pytest-benchmark, GitPython).
    broken = ("tests/benchmark/", "tests/primer/", "tests/profile/", "tests/testutils/_primer/")
    return [f for f in PY if f.startswith("tests/") and os.path.basename(f).startswith("test_") and not f.startswith(broken)]


TESTS = test_files()


def test_functions(path):
    """(class or None, function) pairs of the test functions defined in a file."""
    try:
        tree = ast.parse(open(os.path.join(ROOT, path), encoding="utf-8").read())
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return []
    found = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            found.append((None, node.name))
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name.startswith("test"):
                    found.append((node.name, item.name))
    return found


def identifiers(path):
    try:
        tree = ast.parse(open(os.path.join(ROOT, path), encoding="utf-8").read())
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return []
    return [n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and len(n.name) > 3]


def django_label(path):
    # tests/utils_tests/test_text.py -> utils_tests.test_text
    return path[len("tests/"):-3].replace("/", ".")


def test_command(path, name=None):
    if REPO == "django":
        label = django_label(path) if name is None else django_label(path) + "." + ".".join(p for p in name if p)
        return "cd tests && python3 runtests.py --parallel 1 --verbosity 2 " + label
    if REPO == "sympy":
        return "python3 bin/test -C --verbose " + path + ("" if name is None else " -k " + name[1])
    node = path if name is None else path + "::" + "::".join(p for p in name if p)
    return "python3 -m pytest -rA -p no:cacheprovider " + node


def module_command():
    if REPO == "django":
        apps = sorted({f.split("/")[1] for f in TESTS if f.count("/") >= 2})
        return "cd tests && python3 runtests.py --parallel 1 --verbosity 2 " + rng.choice(apps)
    if REPO == "sympy":
        packages = sorted({os.path.dirname(os.path.dirname(f)) for f in TESTS})
        return "python3 bin/test -C " + rng.choice(packages)
    packages = sorted({os.path.dirname(f) for f in TESTS} - {"tests"})
    return "python3 -m pytest -q -p no:cacheprovider " + rng.choice(packages)


def pick_test():
    for _ in range(50):
        path = rng.choice(TESTS)
        functions = test_functions(path)
        if functions:
            return path, rng.choice(functions)
    raise RuntimeError("no test function found in " + REPO)


def python_command():
    package = {"django": "django", "sympy": "sympy", "pylint": "pylint"}[REPO]
    module = rng.choice(SOURCE)[:-3].replace("/", ".")
    if module.endswith(".__init__"):
        module = module[: -len(".__init__")]
    choices = [
        "python3 -c 'import %s; print(%s.__file__)'" % (package, package),
        "python3 -c 'import %s; print(%s)'" % (module, module),
    ]
    if REPO == "sympy":
        choices.append("python3 -c 'from sympy import *; x, y = symbols(\"x y\"); print(simplify(sin(x)**2 + cos(x)**2), factor(x**4 - y**4))'")
    if REPO == "django":
        choices.append("python3 -c 'from django.conf import settings; settings.configure(); import django; django.setup(); from django.utils.text import slugify; print(slugify(\"Hello World\"))'")
    return rng.choice(choices)


def edit_command():
    for _ in range(50):
        path = rng.choice(SOURCE)
        try:
            lines = open(os.path.join(ROOT, path), encoding="utf-8").read().splitlines()
        except (UnicodeDecodeError, OSError):
            continue
        candidates = [i for i, line in enumerate(lines) if line.strip().startswith("return ")]
        if candidates:
            line = rng.choice(candidates) + 1
            # A str_replace-style edit as harness edit tools do: read the file, replace one line, write it back.
            script = (
                "import sys; p=sys.argv[1]; n=int(sys.argv[2]); s=open(p).read().split('\\n'); "
                "s[n-1]=s[n-1]+'  # edited'; open(p,'w').write('\\n'.join(s))"
            )
            return 'python3 -c "%s" %s %d && git diff --stat' % (script, path, line)
    raise RuntimeError("no editable file in " + REPO)


def plan(kind):
    if kind == "list":
        d = rng.choice(DIRS)
        return rng.choice(["ls", "ls -la " + d, "find " + d + " -maxdepth 2 -type d", "ls -R " + d + " | head -200"])
    if kind == "read":
        # Agents read files they found, which have content: skip empty ones (Django has many empty __init__.py).
        path, size = "", 0
        while size == 0:
            path = rng.choice(PY)
            size = len(open(os.path.join(ROOT, path), encoding="utf-8", errors="replace").read().splitlines())
        start = rng.randrange(1, max(2, size - 40))
        return rng.choice(["cat " + path, "sed -n '%d,%dp' %s" % (start, start + rng.choice([40, 80, 120]), path), "head -n 200 " + path, "cat -n " + path + " | sed -n '1,250p'"])
    if kind == "search":
        names = []
        while not names:
            names = identifiers(rng.choice(SOURCE))
        name = rng.choice(names)
        where = rng.choice([".", REPO if os.path.isdir(os.path.join(ROOT, REPO)) else ".", os.path.dirname(rng.choice(SOURCE)) or "."])
        return rng.choice([
            "grep -rn '%s' %s" % (name, where),
            "grep -rn --include='*.py' 'def %s' ." % name,
            "find . -name '*%s*'" % name.lower()[:8],
            "grep -rln '%s' . | head -50" % name,
        ])
    if kind == "git":
        return rng.choice(["git status", "git diff", "git log --oneline -5", "git diff --stat", "git show --stat HEAD | head -40"])
    if kind == "python":
        return python_command()
    if kind == "edit":
        return edit_command()
    if kind == "test_one":
        path, name = pick_test()
        return test_command(path, name)
    if kind == "test_file":
        return test_command(rng.choice(TESTS))
    if kind == "test_module":
        return module_command()
    raise ValueError(kind)


def run(kind, command):
    started = time.perf_counter()
    timed_out = False
    # Its own process group, so a timeout stops the test runner's children too (SymPy's bin/test runs a child python).
    process = subprocess.Popen(["bash", "-c", command], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=CAP_S)
        code = process.returncode
    except subprocess.TimeoutExpired:
        timed_out, code = True, None
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
    ms = (time.perf_counter() - started) * 1000
    text = output.decode("utf-8", "replace")
    if kind == "edit":
        subprocess.run(["bash", "-c", "git checkout -q -- . && git clean -fdq"], cwd=ROOT, check=True)
    return {
        "repo": REPO,
        "kind": kind,
        "command": command,
        "ms": round(ms, 1),
        "exitCode": code,
        "timedOut": timed_out,
        "outputChars": len(text),
        "output": text[:OUTPUT_CAP],
    }


jobs = [kind for kind, count in COUNTS.items() for _ in range(count)]
rng.shuffle(jobs)
for kind in jobs:
    command = plan(kind)
    print(json.dumps(run(kind, command)), flush=True)
