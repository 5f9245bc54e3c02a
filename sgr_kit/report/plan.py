"""What a report build will do, checked before it writes anything: the notebooks, the parameters, the folder.

- :data:`NOTEBOOKS`: the report's own pages, shipped with the package; :func:`is_own_page`
  knows one by its name and content (not by the folder it sits in);
- :func:`plan_report`: every option of a build checked, the notebooks resolved, the analysis
  parameters read once (:class:`ReportPlan`);
- :func:`notebook_parameters` and :func:`check_parameters`: what each notebook's
  ``parameters`` cell defines, and refusing a ``-p`` name none defines.
"""

from __future__ import annotations

import copy
import functools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..errors import SgrKitError
from ..resources import demo_dir, demo_paths, notebooks_dir
from ..schema import check_failure_policy, check_profile
from .folder import check_report_folder
from .parameters import ANALYSIS, PARAMETERS, RESERVED, check_parameters_values
from .provenance import sha256

__all__ = ["NOTEBOOKS", "ReportPlan", "check_parameters", "is_own_page", "notebook_parameters", "plan_report",
           "resolve_notebooks"]

#: The report's notebooks, in reading order (``notebooks/<name>.ipynb`` shipped with the package).
NOTEBOOKS: tuple[str, ...] = (
    "01_main_table", "02_constraint_vs_goal", "03_cardinality_bins", "04_family_heatmaps",
    "05_error_profiles", "06_where_points_went", "09_site_reach", "10_effort_and_protocol",
)


@functools.cache
def _shipped_digests() -> dict[str, str]:
    """SHA-256 of each of :data:`NOTEBOOKS` as the package ships it."""
    folder = notebooks_dir()
    return {name: sha256(folder / f"{name}.ipynb") for name in NOTEBOOKS if (folder / f"{name}.ipynb").is_file()}


def is_own_page(notebook: str | os.PathLike) -> bool:
    """True when ``notebook`` is one of the report's own pages: named as one of :data:`NOTEBOOKS`, as shipped.

    "As shipped": byte for byte the package's notebook of that name (its SHA-256), wherever the
    file sits. Only such pages share a kept kernel in a build (:mod:`sgr_kit.report.kernels`);
    any other notebook, wherever it sits (also in the package's ``notebooks/`` folder), runs in
    a kernel of its own.
    """
    path = Path(notebook)
    expected = _shipped_digests().get(path.stem)
    if expected is None or path.suffix != ".ipynb":
        return False
    try:
        return sha256(path) == expected
    except OSError:
        return False


def notebook_parameters(notebook: str | os.PathLike) -> dict[str, Any]:
    """Names and defaults of the notebook's ``parameters`` cell (via papermill).

    Read once per version of the file in a process (its path, size and modification time): a
    session that builds many reports does not parse the same notebooks again for each.
    """
    path = Path(notebook)
    if not path.is_file():
        raise SgrKitError(f"notebook {path} does not exist")
    stat = path.stat()
    return copy.deepcopy(dict(_parameters_of(str(path), str(path.resolve()), stat.st_size, stat.st_mtime_ns)))


@functools.lru_cache(maxsize=64)
def _parameters_of(shown: str, path: str, size: int, mtime_ns: int) -> tuple[tuple[str, Any], ...]:
    import papermill

    try:
        found = papermill.inspect_notebook(path)
    except ValueError as exc:  # e.g. no kernel name in the notebook's metadata
        raise SgrKitError(f"notebook {shown}: cannot read its parameters cell ({exc})") from None
    return tuple((name, info["default"]) for name, info in found.items())


def check_parameters(parameters: Mapping[str, Any], notebooks: Sequence[Path]) -> dict[str, set[str]]:
    """Refuse a parameter no notebook defines; return each notebook's parameter names.

    Raises
    ------
    SgrKitError
        Naming the unknown parameter(s) and listing the accepted ones (never the ones the
        report build sets itself, :data:`~sgr_kit.report.parameters.RESERVED`).
    """
    known = {path.stem: set(notebook_parameters(path)) for path in notebooks}
    accepted = (set().union(*known.values()) if known else set()) - set(RESERVED)
    unknown = sorted(set(parameters) - accepted)
    if unknown:
        raise SgrKitError(
            f"unknown notebook parameter(s) {', '.join(unknown)}; -p takes what the notebooks' parameters cells "
            f"define and the build does not set itself: "
            f"{', '.join(sorted(accepted))}"
        )
    return known


def resolve_notebooks(notebooks: Sequence[str | os.PathLike]) -> list[Path]:
    """Notebook names (``01_main_table``), prefixes (``01``) or paths -> notebook files."""
    folder = notebooks_dir()
    shipped = sorted(folder.glob("*.ipynb"))
    out = []
    for item in notebooks:
        text = str(item)
        if text.endswith(".ipynb"):
            path = Path(text)
            if not path.is_file():
                raise SgrKitError(f"notebook {path} does not exist")
            out.append(path)
            continue
        matches = [p for p in shipped if p.stem == text or p.stem.split("_", 1)[0] == text]
        if len(matches) != 1:
            raise SgrKitError(
                f"notebook {text!r}: expected one of {', '.join(p.stem for p in shipped)} (or its number, e.g. 01)"
            )
        out.append(matches[0])
    if len({p.stem for p in out}) != len(out):
        raise SgrKitError(f"notebooks: a notebook is named twice in {', '.join(map(str, notebooks))}")
    return out


@dataclass
class ReportPlan:
    """Everything :func:`build_report` checked before it writes anything (see :func:`plan_report`)."""

    out: Path
    tasks: list[str]
    runs: list[str]
    audit_labels: str | None
    sources: list[Path]
    known: dict[str, set[str]]
    analysis: dict[str, Any]
    given: dict[str, Any]
    label_files: list[str] = field(default_factory=list)
    trajectories: str | None = None
    #: The price file (the demo's EXAMPLE prices for the demo report), checked.
    prices: str | None = None
    #: ``"paper"``, ``"none"`` or the profile file, checked.
    protocol: str = "paper"
    #: The tool-kinds file, checked.
    tool_kinds: str | None = None

    def jobs(self, folder: str | os.PathLike, *, long_names: Sequence[str] = ()) -> list[tuple]:
        """One job per notebook: (notebook, name, folder, the parameters papermill injects, long names to cut, the
        saved page's own ``output_dir``: :meth:`rerun_dir`)."""
        return [(str(src), src.stem, str(folder), {k: v for k, v in self.given.items() if k in self.known[src.stem]},
                 tuple(long_names), self.rerun_dir(src.stem)) for src in self.sources]

    def rerun_dir(self, page: str) -> str:
        """Where a saved page run again outside the build writes its tables and figures: a folder of its own.

        ``../<report>-rerun/<page>``, relative to the report folder (a saved page runs with the
        report folder as its working directory: ``papermill R/page.ipynb copy.ipynb --cwd R``),
        so a re-run never overwrites the report's own files, which its pages and
        ``provenance.json`` describe; ``-p output_dir .`` asks for the report's folder explicitly.

        Examples
        --------
        >>> ReportPlan(Path("out/R"), [], [], None, [], {}, {}, {}).rerun_dir("10_effort_and_protocol")
        '../R-rerun/10_effort_and_protocol'
        """
        return f"../{self.out.name}-rerun/{page}"


def plan_report(
    tasks: Sequence[str | os.PathLike] | None,
    runs: Sequence[str | os.PathLike] | None,
    out_dir: str | os.PathLike,
    *,
    audit_labels: str | os.PathLike | None = None,
    label_files: Sequence[str | os.PathLike] | None = None,
    profile: str = "paper",
    failure_policy: str | None = None,
    rules: str | os.PathLike | None = None,
    pairing: str | os.PathLike | None = None,
    notebooks: Sequence[str | os.PathLike] = NOTEBOOKS,
    parameters: Mapping[str, Any] | None = None,
    force: bool = False,
    trajectories: str | os.PathLike | None = None,
    prices: str | os.PathLike | None = None,
    protocol: str | os.PathLike = "paper",
    tool_kinds: str | os.PathLike | None = None,
) -> ReportPlan:
    """Check every option of a report build, and write nothing (:func:`build_report` calls it first).

    The analysis parameters (:data:`~sgr_kit.report.parameters.ANALYSIS`) are read once here:
    ``failure_policy`` from ``failure_policy`` or ``parameters`` (the two must agree), every
    value checked against what its notebook accepts, the rest from the notebooks' defaults.
    The notebooks get paths inside the report folder, relative to it (``scores.csv``), so a
    saved notebook runs again with papermill (``--cwd`` the report folder). The price file and
    a protocol profile file are read here (a bad one stops the build before it writes), and
    given to the effort page as copies inside the report (``prices.csv``, ``protocol.yaml``).

    Raises
    ------
    SgrKitError
        For any bad option, naming it (see :func:`check_report_folder` for the folder).
    """
    check_profile(profile)
    parameters = check_parameters_values(dict(parameters or {}))
    if failure_policy is not None:
        check_failure_policy(failure_policy)
        if "failure_policy" in parameters and parameters["failure_policy"] != failure_policy:
            raise SgrKitError(f"--failure-policy {failure_policy} and -p failure_policy "
                              f"{parameters['failure_policy']} disagree; give the failure policy once")
        parameters["failure_policy"] = failure_policy
    runs = runs or ([str(trajectories)] if trajectories else None)  # trajectories hold the final answers
    if not tasks and not runs:
        demo = demo_paths()
        tasks, runs = [str(demo["constraint"]), str(demo["goal"])], [str(demo["runs"])]
        audit_labels = audit_labels or str(demo["audit"])
        trajectories = str(demo["trajectories"])
        prices = prices or str(demo_dir() / "prices-example.csv")  # EXAMPLE prices, marked so in the file
    elif not tasks or not runs:
        raise SgrKitError("report: give both --tasks and --runs, or neither to build the demo report")
    label_files = [str(f) for f in label_files or ()]
    sources = resolve_notebooks(notebooks)
    user_notebooks = [str(p) for p in sources if not is_own_page(p)]
    profile_file = None if str(protocol) in ("paper", "none") else str(protocol)
    inputs = [*tasks, *runs, *(x for x in (audit_labels, rules, pairing, trajectories, prices, profile_file,
                                           tool_kinds) if x), *label_files, *user_notebooks]  # fmt: skip
    out = check_report_folder(out_dir, force=force, inputs=inputs)
    known = check_parameters(parameters, sources)
    if audit_labels is not None and not Path(audit_labels).is_file():
        raise SgrKitError(f"audit file {audit_labels} does not exist; expected a CSV with system, task_id, label")
    for label_file in label_files:
        if not Path(label_file).is_file():
            raise SgrKitError(f"label file {label_file} does not exist; expected an annotator's label CSV")
    if trajectories is not None and not Path(trajectories).exists():
        raise SgrKitError(f"trajectories {trajectories} do not exist; expected a JSONL file or a folder")
    from ..trajectories import read_prices, read_tool_kinds
    from ..trajectories.protocol import read_protocol

    if prices is not None:
        read_prices(prices)
    audit_off = read_protocol(protocol) is None
    if tool_kinds is not None:
        read_tool_kinds(tool_kinds)
    analysis = {name: parameters.get(name, PARAMETERS[name].default) for name in ANALYSIS}
    given = {"scores_path": "scores.csv", "cells_path": "cells.parquet",
             "audit_path": "audit-labels.csv" if audit_labels is not None else None, "output_dir": ".",
             "label_paths": [f"labels-{i}.csv" for i in range(1, len(label_files) + 1)] or None,
             "site_reach_path": "site-reach.csv" if trajectories is not None else None,
             "tool_kind_sources_path": "tool-kind-sources.csv" if trajectories is not None else None,
             "usage_path": "usage.csv" if trajectories is not None else None,
             "flags_path": "protocol-flags.csv" if trajectories is not None and not audit_off else None,
             "prices_path": None if prices is None else f"prices{Path(prices).suffix.lower()}",
             "protocol": str(protocol) if profile_file is None else f"protocol{Path(profile_file).suffix.lower()}",
             "profile": profile, **analysis}
    return ReportPlan(out, [str(t) for t in tasks], [str(r) for r in runs],
                      None if audit_labels is None else str(audit_labels), sources, known, analysis, given,
                      label_files, None if trajectories is None else str(trajectories),
                      None if prices is None else str(prices), str(protocol),
                      None if tool_kinds is None else str(tool_kinds))
