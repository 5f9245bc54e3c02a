"""The data sgr-kit ships inside the package, found with :mod:`importlib.resources`.

The project keeps one copy of each: the top-level ``notebooks/`` and ``data/`` folders of
the source tree are mapped onto the packages ``sgr_kit.notebooks``, ``sgr_kit.data.reference``
and ``sgr_kit.data.demo`` when the package is built (``pyproject.toml``), so an installed
wheel, an editable install and the checkout all read the same files:

- :func:`notebooks_dir`: the analysis notebooks (``01_main_table.ipynb`` ...);
- :func:`reference_dir`: the paper's published numbers (``data/reference``);
- :func:`demo_dir`, :func:`demo_paths`: the SYNTHETIC demo benchmark (``data/demo``);
- :func:`templates_dir`: the report's HTML export templates.

A missing folder is an :class:`~sgr_kit.errors.SgrKitError` saying how to reinstall.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from .errors import SgrKitError

__all__ = ["notebooks_dir", "reference_dir", "demo_dir", "demo_paths", "templates_dir", "package_folder"]

#: The demo benchmark's files, by role.
DEMO_FILES = {"constraint": "constraint.jsonl", "goal": "goal.jsonl", "runs": "runs.jsonl", "audit": "audit.csv",
              "trajectories": "trajectories.jsonl"}


def package_folder(package: str, probe: str) -> Path:
    """The folder of the data package ``package`` on disk, checked to hold the file ``probe``.

    Each data folder holds a one-line ``__init__.py`` so that it is importable as a package
    in every kind of install (a wheel, or an editable install whose finder maps the package
    names onto the source tree's folders).

    Examples
    --------
    >>> package_folder("sgr_kit.data.reference", "table2_main.csv").name
    'reference'
    """
    try:
        root = resources.files(package)
    except ModuleNotFoundError:
        root = None
    child = root / probe if root is not None else None
    if child is None or not child.is_file():
        raise SgrKitError(
            f"sgr-kit's packaged data {package} (file {probe}) is not installed; reinstall the package "
            f"(`pip install sgr-kit`, or `pip install -e .` in a checkout)"
        )
    return Path(str(child)).parent


def notebooks_dir() -> Path:
    """The folder of the analysis notebooks shipped with the package."""
    return package_folder("sgr_kit.notebooks", "01_main_table.ipynb")


def reference_dir() -> Path:
    """The folder of the paper's published numbers (``data/reference`` in the source tree)."""
    return package_folder("sgr_kit.data.reference", "table2_main.csv")


def demo_dir() -> Path:
    """The folder of the SYNTHETIC demo benchmark (``data/demo`` in the source tree)."""
    return package_folder("sgr_kit.data.demo", "runs.jsonl")


def demo_paths() -> dict[str, Path]:
    """The demo's files by role: ``constraint``, ``goal`` (tasks), ``runs`` (answers), ``audit`` (labels),
    ``trajectories`` (SYNTHETIC trajectories of the CLI systems' answers).

    Examples
    --------
    >>> sorted(demo_paths())
    ['audit', 'constraint', 'goal', 'runs', 'trajectories']
    """
    folder = demo_dir()
    return {role: folder / name for role, name in DEMO_FILES.items()}


def templates_dir() -> Path:
    """The folder of the report's nbconvert templates (``sgr_offline``)."""
    return package_folder("sgr_kit.report", "templates/sgr_offline/index.html.j2").parent
