"""environment.yml (conda users) and pyproject.toml (pip) must list the same packages."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~ \[]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _pyproject() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    reqs = list(project["dependencies"]) + list(extras["test"]) + list(extras["docs"])
    return {_name(r): r.replace(" ", "") for r in reqs}


def _environment() -> dict[str, str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    deps = [d for d in env["dependencies"] if isinstance(d, str)]
    return {_name(d): d.replace(" ", "") for d in deps if _name(d) not in ("python", "pip")}


def test_same_packages_in_both_files():
    assert sorted(_pyproject()) == sorted(_environment())


def test_same_version_bounds_in_both_files():
    py, env = _pyproject(), _environment()
    bounds = lambda req: re.sub(r"^[A-Za-z0-9_.\-]+", "", req)  # noqa: E731
    assert {n: bounds(r) for n, r in py.items()} == {n: bounds(r) for n, r in env.items()}


def test_design_card_packages_present():
    required = {"jupyterlab", "ipywidgets", "pandas", "seaborn", "scipy", "nbformat", "papermill", "tqdm"}
    assert required <= set(_pyproject())


def test_make_setup_installs_the_test_and_docs_tools():
    setup = re.search(r"pip install [^\n]*-e '\.\[([a-z,]+)\]'", (ROOT / "Makefile").read_text())
    assert setup and {"test", "docs"} <= set(setup.group(1).split(","))
    docs = {_name(r) for r in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["docs"]}
    assert {"sphinx", "pydata-sphinx-theme", "numpydoc", "myst-nb"} <= docs


def test_environment_installs_the_package_itself():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = [d for d in env["dependencies"] if isinstance(d, dict)][0]["pip"]
    assert "-e ." in pip


def test_every_package_of_sgr_kit_is_listed_for_the_wheel():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "sgr_kit").rglob("__init__.py")}
    assert found <= listed, sorted(found - listed)
    data = {"sgr_kit.notebooks": "notebooks", "sgr_kit.data": "data", "sgr_kit.data.reference": "data/reference",
            "sgr_kit.data.demo": "data/demo"}
    assert set(data) <= listed
    for folder in data.values():
        assert (ROOT / folder / "__init__.py").is_file(), folder
