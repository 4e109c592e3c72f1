"""How the ``types`` of the contract JSONs were read: the fields of a class, by AST, from a trainer's git checkout.

Not run by the tests (the trainers' sources are not on this machine's path). Usage::

    python3 extract_fields.py <git dir> <commit> <file> <Class> [<Class> ...]

prints ``{"Class": [{"name", "type", "required", "default"?}, ...]}`` with types and defaults verbatim from
the source; nested Enum classes appear as ``{"enum": name, "members": {...}}`` where they are declared.
"""

import ast
import json
import subprocess
import sys


def class_fields(source: str, name: str) -> list:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and node.name == name:
            fields = []
            for statement in node.body:
                if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                    entry = {"name": statement.target.id, "type": ast.unparse(statement.annotation), "required": statement.value is None}
                    if statement.value is not None:
                        entry["default"] = ast.unparse(statement.value)
                    fields.append(entry)
                elif isinstance(statement, ast.ClassDef) and any(isinstance(base, ast.Name) and base.id == "Enum" for base in statement.bases):
                    members = {t.targets[0].id: ast.literal_eval(t.value) for t in statement.body if isinstance(t, ast.Assign)}
                    fields.append({"enum": statement.name, "members": members})
            return fields
    raise SystemExit(f"no class {name}")


if __name__ == "__main__":
    git_dir, commit, path, *classes = sys.argv[1:]
    source = subprocess.run(["git", "-C", git_dir, "show", f"{commit}:{path}"], capture_output=True, text=True, check=True).stdout
    print(json.dumps({name: class_fields(source, name) for name in classes}, indent=1))
