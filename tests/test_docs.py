"""The README and the manual (docs/) cannot drift from the code.

- every ``python``, ``sh``, ``shell`` and ``console`` block of README.md and docs/**/*.md runs
  (one temporary folder per page, its blocks in order, Python blocks sharing one namespace),
  except blocks preceded by the marker ``<!-- example: skip (reason) -->``;
- every relative link of README.md resolves, and every test the safety-promises table names
  is collected by pytest;
- every public name (each module's ``__all__``) has a docstring;
- the manual builds with warnings as errors (marked ``slow``: it executes the notebooks).

A shell block made only of ``.venv/bin/sgr-kit ...`` commands runs each of them in this process,
through ``sgr_kit.cli.main``, what the console script calls (its words split as bash splits them;
its exit status checked), so a report such a block builds takes the kernels this process keeps
(``tests/conftest.py``); any other block (a pipe, a redirection, another program) runs in bash.
The console script itself runs in the release and command-line tests.

The folder each page's examples run in holds the synthetic demo under the names the examples
use (``constraint.jsonl``, ``goal.jsonl``, ``my-runs.jsonl``, ``audit-labels.csv``,
``trajectories.jsonl``), its scores (``scores.csv``, ``cells.parquet``), and links to the
environment (``.venv``) and to ``notebooks/``; see docs/contributing.md.
"""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md"] + sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts and "api" not in p.parts)
RUN = ("python", "sh", "shell", "console", "bash")
SKIP = re.compile(r"<!--\s*example:\s*skip\b(.*?)-->")
FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+|~~~+)(?P<info>[^\n`]*)$")


def code_blocks(path: Path) -> list[tuple[int, str, str, str | None]]:
    """``(line, language, code, skip reason or None)`` for every fenced block of a Markdown page."""
    lines = path.read_text(encoding="utf-8").split("\n")
    blocks, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = len(m["indent"]), m["fence"], m["info"].strip()
        start, body = i, []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
            i += 1
        i += 1
        before = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        skip = SKIP.search(before)
        language = info.split()[0].strip("{}") if info else ""
        blocks.append((start + 1, language, "\n".join(body), skip.group(1).strip(" ():") if skip else None))
    return blocks


def shell_script(language: str, code: str) -> str:
    """The commands of a shell block; a ``console`` block's commands are its ``$ `` lines."""
    if language != "console":
        return code
    commands, continued = [], False
    for line in code.split("\n"):
        if line.startswith("$ ") or continued:
            commands.append(line[2:] if line.startswith("$ ") else line)
            continued = line.endswith("\\")
    return "\n".join(commands)


QUOTED = re.compile(r"'[^']*'|\"[^\"$`\\\\]*\"")
SHELL_SYNTAX = re.compile(r"[|&;<>$`()*?~{}\[\]\\'\"]|(?<=\S)#")


def sgr_kit_commands(script: str) -> list[list[str]] | None:
    """The argument lists of a script made only of ``.venv/bin/sgr-kit`` commands (one per line,
    ``\\``-continued, ``#`` comments, plain quotes), or None when anything in it needs a shell."""
    commands = []
    for line in script.replace("\\\n", " ").split("\n"):
        bare = QUOTED.sub("_", line)
        if SHELL_SYNTAX.search(bare.split(" #", 1)[0] if not bare.lstrip().startswith("#") else ""):
            return None
        words = shlex.split(line, comments=True)
        if not words:
            continue
        if words[0] != ".venv/bin/sgr-kit":
            return None
        commands.append(words[1:])
    return commands or None


def _slow(path: Path) -> bool:
    """A page whose examples run commands (each starts a Python process: half a second or more)."""
    return any(b[1] in RUN and b[1] != "python" and b[3] is None for b in code_blocks(path))


def _id(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.fixture(scope="session")
def example_inputs(tmp_path_factory):
    """The demo under the examples' file names, scored once."""
    from sgr_kit.resources import demo_paths
    from sgr_kit.pipeline import score_files_to

    folder = tmp_path_factory.mktemp("example-inputs")
    demo = demo_paths()
    shutil.copy(demo["constraint"], folder / "constraint.jsonl")
    shutil.copy(demo["goal"], folder / "goal.jsonl")
    shutil.copy(demo["runs"], folder / "my-runs.jsonl")
    shutil.copy(demo["audit"], folder / "audit-labels.csv")
    shutil.copy(Path(demo["runs"]).with_name("trajectories.jsonl"), folder / "trajectories.jsonl")
    score_files_to(
        [folder / "constraint.jsonl", folder / "goal.jsonl"], [folder / "my-runs.jsonl"],
        folder / "scores.csv", cells=folder / "cells.parquet", progress=False,
    )
    return folder


@pytest.mark.parametrize(
    "page", [pytest.param(p, id=_id(p), marks=[pytest.mark.slow] if _slow(p) else []) for p in PAGES]
)
def test_every_example_of_the_page_runs(page, example_inputs, tmp_path, monkeypatch, capsys):
    blocks = [b for b in code_blocks(page) if b[1] in RUN and b[3] is None]
    if not blocks:
        pytest.skip(f"{_id(page)} has no example to run")
    for item in example_inputs.iterdir():
        shutil.copy(item, tmp_path / item.name)
    (tmp_path / ".venv").symlink_to(sys.prefix, target_is_directory=True)
    (tmp_path / "notebooks").symlink_to(ROOT / "notebooks", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace: dict = {"__name__": "__example__"}
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    for line, language, code, _ in blocks:
        where = f"{_id(page)}:{line} ({language} block)"
        if language == "python":
            try:
                exec(compile(code, where, "exec"), namespace)  # noqa: S102
            except Exception as error:  # a failing example names its page and line
                pytest.fail(f"{where} failed: {type(error).__name__}: {error}\n{code}")
        elif (commands := sgr_kit_commands(shell_script(language, code))) is not None:
            assert (tmp_path / ".venv" / "bin" / "sgr-kit").is_file(), "the environment has no sgr-kit command"
            for arguments in commands:
                status = _main(arguments)
                out, err = capsys.readouterr()
                assert status == 0, f"{where}: sgr-kit {' '.join(arguments)} exited {status}\n{out[-3000:]}\n{err[-3000:]}"
        else:
            done = subprocess.run(["bash", "-e", "-c", shell_script(language, code)], cwd=tmp_path, env=env,
                                  capture_output=True, text=True, timeout=900)
            assert done.returncode == 0, f"{where} exited {done.returncode}\n{code}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


def _main(arguments: list[str]) -> int:
    """``sgr-kit ARGUMENTS`` in this process: its exit status (argparse's exit included)."""
    from sgr_kit.cli import main

    try:
        return main(arguments)
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 1


@pytest.mark.parametrize("script, commands", [
    (".venv/bin/sgr-kit score --out 'my scores.csv' \\\n    --system \"Kimi K2.5\"  # a comment", [["score", "--out", "my scores.csv", "--system", "Kimi K2.5"]]),
    (".venv/bin/sgr-kit a\n\n# only a comment\n.venv/bin/sgr-kit b -p systems '[X, Y]'", [["a"], ["b", "-p", "systems", "[X, Y]"]]),
    (".venv/bin/sgr-kit score --help > help.txt", None),
    (".venv/bin/sgr-kit score | head", None),
    (".venv/bin/sgr-kit score \"$OUT\"", None),
    (".venv/bin/sgr-kit score *.jsonl", None),
    (".venv/bin/sgr-kit a && .venv/bin/sgr-kit b", None),
    ("sgr-kit score", None),
    ("cat x\n.venv/bin/sgr-kit score", None),
    ("# nothing", None),
])
def test_only_a_block_of_plain_sgr_kit_commands_runs_in_process(script, commands):
    assert sgr_kit_commands(script) == commands


def test_the_skip_marker_is_used_sparingly():
    skipped = [(_id(p), line, reason) for p in PAGES for line, lang, _, reason in code_blocks(p) if reason is not None]
    assert all(reason for _, _, reason in skipped), f"every skipped example says why: {skipped}"
    assert len(skipped) <= 8, skipped


def test_a_renamed_attribute_in_an_example_fails(tmp_path, example_inputs, monkeypatch):
    """The runner fails an example naming an attribute the code does not have."""
    page = tmp_path / "page.md"
    page.write_text(
        "```python\nimport sgr_kit\ntasks = sgr_kit.load_tasks('constraint.jsonl')\n"
        "tasks['arxiv_001'].oracle_answer\n```\n", encoding="utf-8",
    )
    (line, language, code, skip), = code_blocks(page)
    monkeypatch.chdir(example_inputs)
    with pytest.raises(AttributeError, match="oracle_answer"):
        exec(compile(code, "page.md", "exec"), {})  # noqa: S102


LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")


def _anchors(path: Path) -> set[str]:
    anchors = set()
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return anchors


def test_every_relative_link_of_the_readme_resolves():
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    links = [a or b for a, b in LINK.findall(text)]
    assert links
    broken = []
    for link in links:
        if re.match(r"[a-z]+:", link):
            continue
        target, _, anchor = link.partition("#")
        path = (readme.parent / target) if target else readme
        if not path.exists():
            broken.append(link)
        elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
            broken.append(link)
    assert not broken, broken


def test_every_test_the_safety_table_names_is_collected():
    table = (DOCS / "guide" / "safety.md").read_text(encoding="utf-8")
    named = []
    for row in table.split("\n"):
        if not row.startswith("|") or "tests/" not in row:
            continue
        current = None
        for ref in re.findall(r"`([^`]+)`", row.split("|")[2]):
            if ref.startswith("tests/"):
                current, _, test = ref.partition("::")
            elif ref.startswith("::"):
                test = ref[2:]
            else:
                continue
            named.append((current, test))
    assert len(named) > 10
    files = sorted({f for f, _ in named})
    for f in files:
        assert (ROOT / f).is_file(), f
    collected = {f"{f}::{name}" for f in files for name in _test_names(ROOT / f)}  # the suite collects these files
    missing = [f"{f}::{t}" for f, t in named if t and f"{f}::{t}" not in collected]
    assert not missing, missing


def _test_names(path: Path) -> set[str]:
    """The tests pytest collects from a test file: its ``test_*`` functions, and ``Test*`` classes' methods."""
    import ast

    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            names |= {f"{node.name}::{item.name}" for item in node.body
                      if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name.startswith("test")}
    return names


def _public_modules():
    import sgr_kit

    names = ["sgr_kit"]
    for info in pkgutil.walk_packages(sgr_kit.__path__, "sgr_kit."):
        if not any(p.startswith("_") for p in info.name.split(".")):
            names.append(info.name)
    return names


def test_every_public_name_has_a_docstring():
    """Functions, classes and modules: their own docstring; constants: a ``#:`` comment or a
    docstring after the assignment in the module that defines them (what autodoc shows)."""
    analyzer = pytest.importorskip("sphinx.pycode").ModuleAnalyzer
    missing = []
    constants: dict[str, list[str]] = {}
    for modname in _public_modules():
        module = importlib.import_module(modname)
        if not inspect.getdoc(module):
            missing.append(modname)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            # a function wrapped by a decorator (functools.lru_cache) is documented as a function
            if inspect.isclass(obj) or inspect.isfunction(inspect.unwrap(obj)) or inspect.ismodule(obj):
                if not (obj.__doc__ or "").strip():
                    missing.append(f"{modname}.{name}")
            else:
                constants.setdefault(name, []).append(modname)
    undocumented = []
    for name, modules in constants.items():
        documented = False
        for modname in modules:
            docs = analyzer.for_module(modname).find_attr_docs()
            if ("", name) in docs and "".join(docs[("", name)]).strip():
                documented = True
        if not documented:
            undocumented.append(name)
    assert not missing, missing
    # Constants written before this check: each must gain a `#:` comment, and the list only shrink.
    grandfathered = set(UNDOCUMENTED_CONSTANTS)
    assert not set(undocumented) - grandfathered, sorted(set(undocumented) - grandfathered)
    assert not grandfathered - set(undocumented), f"now documented, remove from the list: {sorted(grandfathered - set(undocumented))}"


UNDOCUMENTED_CONSTANTS: tuple[str, ...] = (
    "CORRECT", "CREDIT", "CSS", "DEFAULT_SEED", "DIFF_CMAP", "DOMAIN_COLUMNS", "DUPLICATE", "ERROR_LABELS",
    "EXTRA", "PAPER_TASKS_PER_VARIANT", "SLIDE_WIDTH", "SYNTHETIC_GID", "TABLE_FORMATS", "TABLE_SUFFIXES", "TEXT_LIMIT",
    "TEXT_WIDTH", "ZERO", "__version__",
)


@pytest.mark.slow
def test_the_manual_builds_offline_without_warnings(manual):
    # the shared build (tests/built_once.py): sphinx -W --keep-going -E, which failed the fixture on any warning
    pages = list(manual.rglob("*.html"))
    assert len(pages) > 100
    remote = re.compile(r"<(script|link|img|iframe|source)\b[^>]*\b(src|href)=[\"'](https?:)?//", re.I)
    loading = [(p.name, m.group(0)) for p in pages for m in remote.finditer(p.read_text(encoding="utf-8"))]
    assert not loading, loading[:10]
