"""The notebooks' parameters: what each accepts, read as data, checked before any work starts.

One place defines every parameter of the analysis notebooks' ``parameters`` cells
(:data:`PARAMETERS`): its kind, its range or choices, and whether the report build sets it
itself. The command line (``sgr-kit report -p NAME VALUE``), the report build and the tests
read this table; a test checks that the notebooks' ``parameters`` cells agree with it.

A ``-p`` value is YAML read as *data* (:func:`parse_parameter`): a string, an integer, a
finite float, a boolean, null, or a flat list of those. Every explicit YAML tag
(``!!binary``, ``!!omap``, ``!!pairs``, ``!!set``, ``!!python/...``, even ``!!str``), every
mapping, nested list, anchor and alias is refused, naming the parameter and what was found.
A date or time (``2024-05-01``) is kept as the text written. Then :func:`check_parameter`
checks the value against what its notebook accepts (type and range), so a bad value is an
error before anything is scored or written, never a failure after every notebook has run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

from ..errors import SgrKitError
from ..schema import FAILURE_POLICIES, METRICS, PROFILES

__all__ = ["FIGURE_FORMATS", "ParameterSpec", "PARAMETERS", "RESERVED", "ANALYSIS", "parse_parameter",
           "check_parameter", "check_parameters_values", "accepted_names"]

#: Accepted values of the notebooks' ``figure_format`` parameter and the files each writes.
FIGURE_FORMATS: dict[str, tuple[str, ...]] = {
    "png": ("png",), "svg": ("svg",), "pdf": ("pdf",), "png+svg": ("png", "svg"), "png+pdf": ("png", "pdf"),
}
#: Upper bound of resample counts (``n_boot``, ``n_perm``): more gives no visible precision and
#: would only make a build run for hours.
MAX_RESAMPLES = 1_000_000
#: Upper bound of ``seed`` (numpy accepts any non-negative integer; this keeps it a 64-bit number).
MAX_SEED = 2**63 - 1


@dataclass(frozen=True)
class ParameterSpec:
    """What one notebook parameter accepts.

    Attributes
    ----------
    name : str
    kind : {"int", "float", "choice", "names", "choices", "path", "paths"}
        ``int``/``float``: a number within ``low``..``high`` (``float`` bounds exclusive);
        ``choice``: one of ``choices``; ``names``: null or a list of non-empty strings (one string
        is one name); ``choices``: a non-empty list of distinct ``choices``; ``path``/``paths``: a
        file (or list of files) given by the report build itself.
    default : object
        The value the notebooks' ``parameters`` cells hold.
    low, high : number, optional
    choices : tuple of str, optional
    reserved : bool
        Set by the report build from its own options (``--tasks``, ``--out`` ...); refused as ``-p``.
    option : str
        The ``sgr-kit report`` option that sets a reserved parameter.
    """

    name: str
    kind: str
    default: Any = None
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    reserved: bool = False
    option: str = ""

    def describe(self) -> str:
        """What the parameter accepts, in words."""
        if self.kind == "int":
            return f"an integer from {self.low:,} to {self.high:,}"
        if self.kind == "float":
            return f"a number strictly between {self.low} and {self.high}"
        if self.kind == "choice":
            return f"one of {', '.join(self.choices)}"
        if self.kind == "choices":
            return f"a list of distinct values among {', '.join(self.choices)}"
        if self.kind == "names":
            return "null or a list of names, e.g. [GPT-5.5, Kimi K2.5]"
        return "a path (set by the report build)"


#: Every parameter of the report notebooks' ``parameters`` cells (07_explorer's ``report_dir`` aside).
PARAMETERS: dict[str, ParameterSpec] = {spec.name: spec for spec in (
    ParameterSpec("scores_path", "path", reserved=True, option="--tasks/--runs"),
    ParameterSpec("cells_path", "path", reserved=True, option="--tasks/--runs"),
    ParameterSpec("tasks_paths", "paths", reserved=True, option="--tasks"),
    ParameterSpec("runs_path", "paths", reserved=True, option="--runs"),
    ParameterSpec("audit_path", "path", reserved=True, option="--audit"),
    ParameterSpec("label_paths", "paths", reserved=True, option="--labels"),
    ParameterSpec("trajectories_path", "path", reserved=True, option="--trajectories"),
    ParameterSpec("site_tasks_paths", "paths", reserved=True, option="--tasks"),
    ParameterSpec("site_reach_path", "path", reserved=True, option="--trajectories"),
    ParameterSpec("tool_kind_sources_path", "path", reserved=True, option="--trajectories"),
    ParameterSpec("prices_path", "path", reserved=True, option="--prices"),
    ParameterSpec("protocol", "path", "paper", reserved=True, option="--protocol"),
    ParameterSpec("tool_kinds_path", "path", reserved=True, option="--tool-kinds"),
    ParameterSpec("usage_path", "path", reserved=True, option="--trajectories"),
    ParameterSpec("flags_path", "path", reserved=True, option="--protocol"),
    ParameterSpec("profile", "choice", "paper", choices=PROFILES, reserved=True, option="--profile"),
    ParameterSpec("output_dir", "path", reserved=True, option="--out"),
    ParameterSpec("systems", "names", None),
    ParameterSpec("failure_policy", "choice", "zero", choices=FAILURE_POLICIES),
    ParameterSpec("n_boot", "int", 10000, low=100, high=MAX_RESAMPLES),
    ParameterSpec("seed", "int", 0, low=0, high=MAX_SEED),
    ParameterSpec("alpha", "float", 0.05, low=0.0, high=1.0),
    ParameterSpec("n_perm", "int", 10000, low=100, high=MAX_RESAMPLES),
    ParameterSpec("metrics", "choices", list(METRICS), choices=METRICS),
    ParameterSpec("figure_format", "choice", "png+svg", choices=tuple(FIGURE_FORMATS)),
)}
#: Parameters the report build sets from its own options.
RESERVED: tuple[str, ...] = tuple(name for name, spec in PARAMETERS.items() if spec.reserved)
#: The analysis parameters: read once, used by every page and by the index, recorded in the provenance.
ANALYSIS: tuple[str, ...] = ("systems", "failure_policy", "n_boot", "seed", "alpha", "n_perm", "metrics",
                             "figure_format")


def accepted_names() -> tuple[str, ...]:
    """The names ``-p`` accepts (every parameter but the reserved ones).

    Examples
    --------
    >>> "n_boot" in accepted_names(), "output_dir" in accepted_names()
    (True, False)
    """
    return tuple(name for name, spec in PARAMETERS.items() if not spec.reserved)


def _loader():
    """A YAML loader that resolves only plain scalars: no dates, no merge keys, no ``=`` values."""
    import yaml

    class ParameterLoader(yaml.SafeLoader):
        pass

    ParameterLoader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers
                if tag in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
                           "tag:yaml.org,2002:null")]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    return ParameterLoader


_SCALARS = (str, int, float, bool, type(None))


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def parse_parameter(name: str, text: str) -> Any:
    """A ``-p NAME VALUE`` value as data: a string, integer, finite float, boolean, null or flat list.

    Text that YAML cannot read stays a string. A YAML tag, mapping, nested list, anchor or alias
    is refused.

    Raises
    ------
    SgrKitError
        Naming the parameter and what was found.

    Examples
    --------
    >>> parse_parameter("n_boot", "2000"), parse_parameter("systems", "[GPT-5.5, Kimi K2.5]")
    (2000, ['GPT-5.5', 'Kimi K2.5'])
    >>> parse_parameter("scores_path", "__import__('os')"), parse_parameter("seed", "2024-05-01")
    ("__import__('os')", '2024-05-01')
    >>> parse_parameter("figure_format", "!!binary aGk=")
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: -p figure_format: expected a number, text, true/false, null or a flat list; found a YAML tag (!!binary)
    """
    import yaml

    expected = f"-p {name}: expected a number, text, true/false, null or a flat list; found"
    if not isinstance(text, str):
        raise SgrKitError(f"-p {name}: expected the value as text; found {_type_name(text)}")
    try:
        events = list(yaml.parse(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError:
        return text
    except RecursionError:
        raise SgrKitError(f"{expected} a value nested too deeply") from None
    depth = 0
    for event in events:
        tag = getattr(event, "tag", None)
        if tag is not None and not (isinstance(event, yaml.SequenceStartEvent) and event.implicit):
            shown = tag.replace("tag:yaml.org,2002:", "!!")
            raise SgrKitError(f"{expected} a YAML tag ({shown})")
        if isinstance(event, yaml.MappingStartEvent):
            raise SgrKitError(f"{expected} a mapping")
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise SgrKitError(f"{expected} a YAML anchor or alias")
        if isinstance(event, yaml.SequenceStartEvent):
            depth += 1
            if depth > 1:
                raise SgrKitError(f"{expected} a nested list")
        elif isinstance(event, yaml.SequenceEndEvent):
            depth -= 1
    try:
        value = yaml.load(text, Loader=_loader())  # noqa: S506 - a SafeLoader restricted to plain scalars
    except yaml.YAMLError:
        return text
    values = value if isinstance(value, list) else [value]
    for item in values:
        if not isinstance(item, _SCALARS):  # pragma: no cover - the checks above leave only scalars
            raise SgrKitError(f"{expected} {_type_name(item)}")
        if isinstance(item, float) and not math.isfinite(item):
            raise SgrKitError(f"{expected} {item}, not a finite number")
    return value


def check_parameter(name: str, value: Any) -> Any:
    """Return ``value`` when parameter ``name`` accepts it (see :data:`PARAMETERS`), else raise.

    Examples
    --------
    >>> check_parameter("n_boot", 2000), check_parameter("systems", "GPT-5.5")
    (2000, ['GPT-5.5'])
    >>> check_parameter("seed", -1)
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: -p seed: expected an integer from 0 to 9,223,372,036,854,775,807; found -1 (int)
    """
    spec = PARAMETERS.get(name)
    if spec is None:
        raise SgrKitError(f"unknown notebook parameter {name}; accepted: {', '.join(accepted_names())}")

    def bad() -> SgrKitError:
        return SgrKitError(f"-p {name}: expected {spec.describe()}; found {value!r} ({_type_name(value)})")

    if spec.kind == "int":
        if isinstance(value, bool) or not isinstance(value, int) or not spec.low <= value <= spec.high:
            raise bad()
        return value
    if spec.kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or not spec.low < value < spec.high:
            raise bad()
        return float(value)
    if spec.kind == "choice":
        if not isinstance(value, str) or value not in spec.choices:
            raise bad()
        return value
    if spec.kind == "choices":
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not items or len(set(map(repr, items))) != len(items) \
                or not all(isinstance(v, str) and v in spec.choices for v in items):
            raise bad()
        return list(items)
    if spec.kind == "names":
        if value is None:
            return None
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not items or not all(isinstance(v, str) and v for v in items):
            raise bad()
        return list(items)
    # paths: set by the build; papermill users may give a string, a list of strings or null
    items = value if isinstance(value, list) else [value]
    if not all(v is None or isinstance(v, str) for v in items):
        raise bad()
    return value


def check_parameters_values(parameters: Mapping[str, Any]) -> dict[str, Any]:
    """Check every ``-p`` value: refuse reserved and unknown names, then each value (see :func:`check_parameter`).

    Raises
    ------
    SgrKitError
        Naming a reserved parameter with the option that sets it, or an unknown one with the
        accepted names (reserved names are not listed as accepted), or a bad value.
    """
    reserved = [name for name in parameters if name in RESERVED]
    if reserved:
        options = sorted({PARAMETERS[name].option for name in reserved})
        raise SgrKitError(f"-p {', '.join(reserved)}: set by the report build itself; use {', '.join(options)} "
                          f"instead")
    unknown = sorted(set(parameters) - set(accepted_names()))
    if unknown:
        raise SgrKitError(f"unknown notebook parameter(s) {', '.join(unknown)}; -p takes what the notebooks' "
                          f"parameters cells define and the build does not set itself: {', '.join(accepted_names())}")
    return {name: check_parameter(name, value) for name, value in parameters.items()}
