"""The package's layers, read from its imports with the standard library's ``ast``.

- no import cycle between modules of ``sgr_kit`` (lazy imports inside functions included);
- no module imports a private name (``_x``) of another module;
- every import goes down the layer order the layout in docs/development.md draws;
- only ``demo/`` and the ``sgr-kit demo`` command import the demo generator;
- no module reaches for a folder above the package (installed wheels have none).
"""

from __future__ import annotations

import ast
from pathlib import Path

import sgr_kit

PACKAGE = Path(sgr_kit.__file__).resolve().parent

#: Layer of each top-level module or subpackage; a module may import only from its own
#: layer or below. (Within one layer, the no-cycle check keeps the order one-way.)
LAYERS = {
    "arguments": 0, "errors": 0, "schema": 0, "testing": 0, "text": 0, "types": 0, "taxonomy": 0, "resources": 0, "output": 0,
    "load": 1, "trajectories": 1,
    "parse": 2, "canonicalize": 3, "align": 3, "metrics": 3, "rules": 3, "score": 4,
    "prepare": 5,
    "pipeline": 6,
    "aggregate": 7, "reference": 7, "stats": 8, "breakdowns": 9,
    "figures": 10, "report": 11, "explore": 11, "annotate": 11,
    "cli": 12, "demo": 12, "run": 12,
}  # fmt: skip


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> list[tuple[str, list[str], int]]:
    """(imported module, imported names, line) for every import of a sgr_kit module in ``path``."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if not base.startswith("sgr_kit"):
                continue
            names = [a.name for a in node.names]
            submodules = [f"{base}.{n}" for n in names if f"{base}.{n}" in modules]
            if submodules:
                found += [(m, [], node.lineno) for m in submodules]
                names = [n for n in names if f"{base}.{n}" not in modules]
            if names or not submodules:
                found.append((base, names, node.lineno))
        elif isinstance(node, ast.Import):
            found += [(a.name, [], node.lineno) for a in node.names if a.name.startswith("sgr_kit")]
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        for target, _, _ in _imports(name, path, modules):
            while target not in modules and "." in target:
                target = target.rsplit(".", 1)[0]
            # a package's __init__ importing its own submodules, and a submodule importing its
            # package's __init__, are how Python packages work, not layering
            if target == name or target.startswith(name + ".") or name.startswith(target + "."):
                continue
            graph[name].add(target)
    return graph


def _layer(module: str) -> int | None:
    parts = module.split(".")
    return LAYERS.get(parts[1]) if len(parts) > 1 else None


def test_every_top_level_module_has_a_layer():
    tops = {m.split(".")[1] for m in _modules() if m.count(".") >= 1}
    assert tops - {"__main__"} <= set(LAYERS), sorted(tops - set(LAYERS))


def test_no_import_cycle():
    graph = _graph()
    cycles, state = [], {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                cycles.append(" -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_imports_go_down_the_layers():
    upward = []
    for module, targets in _graph().items():
        mine = _layer(module)
        for target in targets:
            theirs = _layer(target)
            if mine is not None and theirs is not None and theirs > mine:
                upward.append(f"{module} (layer {mine}) imports {target} (layer {theirs})")
    assert not upward, "\n".join(sorted(upward))


def test_no_module_imports_a_private_name_of_another():
    modules = _modules()
    private = []
    for name, path in modules.items():
        for target, names, line in _imports(name, path, modules):
            for n in names:
                if n.startswith("_") and not n.startswith("__"):
                    private.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {n} from {target}")
            if any(part.startswith("_") and not part.startswith("__") for part in target.split(".")):
                private.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports private module {target}")
    private = [p for p in private if not _inside_own_package(p)]
    assert not private, "\n".join(private)


def _inside_own_package(line: str) -> bool:
    # a package may keep private helper modules (stats/_resample.py) for its own modules
    path, _, rest = line.partition(" imports ")
    target = rest.rsplit(" ", 1)[-1]
    own = ".".join(Path(path.split(":")[0]).with_suffix("").parts[:2])
    return target.startswith(own + ".") or target == own


def test_only_demo_and_its_command_import_the_demo():
    modules = _modules()
    users = set()
    for name, path in modules.items():
        if name.startswith("sgr_kit.demo"):
            continue
        for target, _, _ in _imports(name, path, modules):
            if target == "sgr_kit.demo" or target.startswith("sgr_kit.demo."):
                users.add(name)
    assert users <= {"sgr_kit.cli"}, sorted(users)


def test_no_module_reads_a_path_above_the_package():
    offenders = [
        str(path.relative_to(PACKAGE.parent)) for path in _modules().values()
        if "parents[1]" in path.read_text(encoding="utf-8") or "parent.parent" in path.read_text(encoding="utf-8")
    ]
    assert not offenders, offenders
