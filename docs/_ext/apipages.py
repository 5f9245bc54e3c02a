"""Write the API reference's pages (``api/``) from every module's ``__all__``.

One page per public module of sgr_kit (a module whose dotted name has no part starting
with ``_``, ``__main__`` excepted: it runs a command when imported). Each page holds the
module's docstring, a summary table of its ``__all__`` and a full entry for every name
the module *defines*; a name it re-exports links to the module that defines it, so each
object is described once (Sphinx warns about duplicates, and the build treats warnings
as errors). The pages are regenerated at every build and are not committed.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import pkgutil
from pathlib import Path

PACKAGE = "sgr_kit"


def public_modules(package: str = PACKAGE) -> list[str]:
    """Dotted names of the package's public modules, sorted, the package first."""
    root = importlib.import_module(package)
    names = [package]
    for info in pkgutil.walk_packages(root.__path__, package + "."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts):
            continue
        names.append(info.name)
    return sorted(names)


@functools.lru_cache(maxsize=None)
def _assigned(module) -> frozenset[str]:
    """Names a module assigns at its top level (where its constants are defined); each module parsed once."""
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError):
        return frozenset()
    names: set[str] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        for t in targets:
            if isinstance(t, ast.Name):
                names.add(t.id)
    return frozenset(names)


def _kind(obj) -> str:
    if inspect.isclass(obj):
        return "class"
    if inspect.isfunction(obj) or inspect.isbuiltin(obj) or inspect.ismethod(obj):
        return "function"
    if inspect.ismodule(obj):
        return "module"
    return "data"


def homes(modules: list[str]) -> dict[tuple[str, str], str]:
    """For every (module, name) of an ``__all__``: the module whose page describes it."""
    listed: dict[int, list[tuple[str, str]]] = {}
    objects: dict[int, object] = {}
    for modname in modules:
        module = importlib.import_module(modname)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            key = id(obj) if _kind(obj) in ("class", "function", "module") else id((modname, name))
            objects[key] = obj
            listed.setdefault(key, []).append((modname, name))
    # Constants are identified by where they are assigned, not by identity (small ints and
    # strings are shared objects): a module that assigns a name at its top level is its home.
    result: dict[tuple[str, str], str] = {}
    constants: dict[str, list[str]] = {}
    for key, places in listed.items():
        obj = objects[key]
        kind = _kind(obj)
        if kind == "data":
            modname, name = places[0]
            constants.setdefault(name, []).append(modname)
            continue
        if kind == "module":
            for place in places:
                result[place] = obj.__name__
            continue
        defining = getattr(obj, "__module__", None)
        candidates = [m for m, _ in places]
        home = defining if defining in candidates else min(candidates, key=lambda m: (m.count("."), m))
        for place in places:
            result[place] = home
    for name, mods in constants.items():
        defining = [m for m in mods if name in _assigned(importlib.import_module(m))]
        home = defining[0] if defining else min(mods, key=lambda m: (m.count("."), m))
        for m in mods:
            result[(m, name)] = home
    return result


def _title(text: str, char: str = "=") -> str:
    return f"{text}\n{char * len(text)}\n"


def write_pages(outdir: Path) -> list[str]:
    """Write ``outdir/<module>.rst`` for every public module and ``outdir/index.rst``."""
    outdir.mkdir(parents=True, exist_ok=True)
    modules = public_modules()
    home = homes(modules)
    written = []
    for modname in modules:
        module = importlib.import_module(modname)
        names = list(getattr(module, "__all__", ()))
        lines = [_title(modname), f".. automodule:: {modname}\n   :no-members:\n", f".. currentmodule:: {modname}\n"]
        own = [n for n in names if home[(modname, n)] == modname and _kind(getattr(module, n)) != "module"]
        elsewhere = [n for n in names if n not in own]
        if own:
            lines.append(".. autosummary::\n   :nosignatures:\n")
            lines += [f"   {n}" for n in own]
            lines.append("")
        if elsewhere:
            lines.append(".. rubric:: Re-exported here, described where they are defined\n")
            for n in elsewhere:
                obj = getattr(module, n)
                target = obj.__name__ if _kind(obj) == "module" else f"{home[(modname, n)]}.{n}"
                lines.append(f"- ``{n}``: :py:obj:`{target}`")
            lines.append("")
        for n in own:
            obj = getattr(module, n)
            kind = _kind(obj)
            if kind == "class":
                lines.append(f".. autoclass:: {n}\n   :members:\n   :undoc-members:\n   :show-inheritance:\n")
            elif kind == "function":
                lines.append(f".. autofunction:: {n}\n")
            else:
                lines.append(f".. autodata:: {n}\n   :no-value:\n")
        text = "\n".join(lines) + "\n"
        page = outdir / f"{modname}.rst"
        if not page.exists() or page.read_text(encoding="utf-8") != text:
            page.write_text(text, encoding="utf-8")
        written.append(modname)
    index = [
        _title("API reference"),
        "Every public name of sgr-kit: each module's ``__all__``, generated from the docstrings. "
        "The names most users need are re-exported by :mod:`sgr_kit` itself.\n",
        ".. toctree::\n   :maxdepth: 1\n",
    ]
    index += [f"   {m}" for m in written]
    text = "\n".join(index) + "\n"
    page = outdir / "index.rst"
    if not page.exists() or page.read_text(encoding="utf-8") != text:
        page.write_text(text, encoding="utf-8")
    return written


_DOCUMENTED: dict[object, str] = {}
_BY_SHORT_NAME: dict[str, set[str]] = {}


def _generate(app) -> None:
    write_pages(Path(app.srcdir) / "api")
    modules = public_modules()
    for (modname, name), home in homes(modules).items():
        obj = getattr(importlib.import_module(modname), name)
        kind = _kind(obj)
        full = obj.__name__ if kind == "module" else f"{home}.{name}"
        _DOCUMENTED[(modname, name)] = full
        _BY_SHORT_NAME.setdefault(name, set()).add(full)
        if kind in ("class", "function"):
            _DOCUMENTED[id(obj)] = full


def _lookup(path: str):
    """``(module, attribute path, object)`` for a dotted path of sgr_kit, or None."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        modname = ".".join(parts[:cut])
        if not modname.startswith(PACKAGE):
            return None
        try:
            obj = importlib.import_module(modname)
        except ImportError:
            continue
        rest = parts[cut:]
        for attr in rest:
            if not hasattr(obj, attr):
                return None
            obj = getattr(obj, attr)
        return modname, rest, obj
    return None


def _documented_name(path: str) -> str | None:
    """Where the object a dotted path names is described in the API reference."""
    found = _lookup(path)
    if found is None:
        return None
    modname, rest, obj = found
    if not rest:
        return modname
    if len(rest) == 1:
        return _DOCUMENTED.get(id(obj)) or _DOCUMENTED.get((modname, rest[0]))
    owner = _lookup(".".join(path.split(".")[:-1]))
    if owner is not None and inspect.isclass(owner[2]):
        cls = _DOCUMENTED.get(id(owner[2]))
        return f"{cls}.{rest[-1]}" if cls else None
    return None


def _resolve_alias(app, env, node, contnode):
    """Resolve a reference to a re-exported name (``sgr_kit.load_tasks``) or a name relative
    to the current module or class, to the one place the object is described."""
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip("~.")
    modname, clsname = node.get("py:module"), node.get("py:class")
    candidates = [target]
    if modname and clsname:
        candidates.append(f"{modname}.{clsname}.{target}")
    if modname:
        candidates.append(f"{modname}.{target}")
        parent = modname.rsplit(".", 1)[0]
        candidates.append(f"{parent}.{target}")
    domain = env.get_domain("py")
    short = target.rsplit(".", 1)[-1]
    if len(_BY_SHORT_NAME.get(short, ())) == 1 and (target == short or target.startswith(PACKAGE + ".")):
        # A constant or class named by its bare name (or through a module that only imports
        # it) that one documented object bears.
        candidates.append(next(iter(_BY_SHORT_NAME[short])))
    for candidate in candidates:
        name = _documented_name(candidate)
        if name is None:
            continue
        for typ in (node["reftype"], "obj"):
            new = node.deepcopy()
            new["reftarget"] = name
            new["py:module"] = None
            new["py:class"] = None
            result = domain.resolve_xref(env, node["refdoc"], app.builder, typ, name, new, contnode)
            if result is not None:
                return result
    return None


def setup(app):
    app.connect("builder-inited", _generate)
    app.connect("missing-reference", _resolve_alias)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
