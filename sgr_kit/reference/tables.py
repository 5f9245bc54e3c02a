"""Loaders for the paper's published numbers (``data/reference/*.csv``).

Every number the paper prints is stored exactly as printed, in percent points
(``66.18``, not ``0.6618``), one value per row, with the number of printed
decimals (``decimals``) and where it is printed (``source``). Each loader reads
its file afresh, checks it (columns, allowed names, numbers, decimals that match
the printed value) and returns a tidy DataFrame with fixed columns.

The files describe themselves in ``data/reference/README.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Mapping

import pandas as pd

from ..errors import SgrKitError, where
from ..resources import reference_dir
from ..schema import ERROR_LABELS, ERROR_TYPES, METRICS
from ..taxonomy import BINS, FAMILIES

__all__ = [
    "SYSTEMS",
    "CLI_SYSTEMS",
    "COMMERCIAL_SYSTEMS",
    "SYSTEM_LABELS",
    "ERROR_TYPES",
    "ERROR_LABELS",
    "FAMILY_LABELS",
    "NAMES",
    "data_dir",
    "load",
    "table1",
    "table2",
    "table3",
    "table4",
    "table5",
    "table6",
    "family_item_f1",
    "cardinality",
    "dataset_stats",
    "text_numbers",
]

#: The eight CLI-based systems, in the order of Table 2.
CLI_SYSTEMS: tuple[str, ...] = (
    "GPT-5.5",
    "Claude Opus 4.7",
    "Gemini 3.1 Pro",
    "Qwen3.6-Plus",
    "GLM-5.1",
    "Seed-2.0 Pro",
    "Kimi K2.5",
    "DeepSeek V4 Pro",
)
#: The three commercial products, in the order of Table 2.
COMMERCIAL_SYSTEMS: tuple[str, ...] = ("Gemini Deep Research", "Google Search AI Mode", "OpenAI Deep Research")
#: All eleven systems, in the order of Table 2.
SYSTEMS: tuple[str, ...] = CLI_SYSTEMS + COMMERCIAL_SYSTEMS

#: Table 4's short model labels -> system names of Table 2.
SYSTEM_LABELS: Mapping[str, str] = {
    "Seed-2.0": "Seed-2.0 Pro",
    "Gemini 3.1": "Gemini 3.1 Pro",
    "Kimi K2.5": "Kimi K2.5",
    "Qwen3.6+": "Qwen3.6-Plus",
    "GPT-5.5": "GPT-5.5",
    "GLM-5.1": "GLM-5.1",
    "DS V4 Pro": "DeepSeek V4 Pro",
    "Claude 4.7": "Claude Opus 4.7",
}

#: Table 5's family labels -> families of :data:`sgr_kit.taxonomy.FAMILIES`.
FAMILY_LABELS: Mapping[str, str] = {
    "Scholarly": "scholarly archives",
    "Official stats": "official statistics",
    "Life-science": "life-science resources",
    "Environmental": "environmental monitoring",
    "Regulatory": "regulatory resources",
}

_VARIANTS = ("constraint", "goal", "overall")
_GROUPS = {**{s: "cli" for s in CLI_SYSTEMS}, **{s: "commercial" for s in COMMERCIAL_SYSTEMS}}
_TEXT_UNITS = ("percent", "points", "rank", "count", "seconds")
_TEXT_KINDS = ("repeat", "derived", "standalone")


@dataclass(frozen=True)
class _Spec:
    file: str
    columns: tuple[str, ...]
    choices: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    numbered: bool = True  # has value + decimals columns
    integers: tuple[str, ...] = ()
    optional_value: bool = False


_SPECS: dict[str, _Spec] = {
    "table1": _Spec(
        "table1_benchmarks.csv",
        ("benchmark", "attribute", "value", "source"),
        {"attribute": ("primary_focus", "expert_data_retrieval_sites", "state_gated_evidence", "output_target"),
         "source": ("Table 1",)},
        numbered=False,
    ),
    "table2": _Spec(
        "table2_main.csv",
        ("system", "group", "variant", "metric", "value", "decimals", "source"),
        {"system": SYSTEMS, "group": ("cli", "commercial"), "variant": _VARIANTS, "metric": METRICS,
         "source": ("Table 2",)},
    ),
    "table3": _Spec(
        "table3_per_model.csv",
        ("position", "system", "metric", "value", "decimals", "source"),
        {"system": SYSTEMS, "metric": METRICS, "source": ("Table 3",)},
        integers=("position",),
    ),
    "table4": _Spec(
        "table4_errors_by_model.csv",
        ("label", "system", "error_type", "role", "value", "decimals", "source"),
        {"label": (*SYSTEM_LABELS, "Total"), "system": (*CLI_SYSTEMS, ""),
         "error_type": (*ERROR_TYPES, "fail", "correct"), "role": ("count", "row_total", "column_total"),
         "source": ("Table 4",)},
    ),
    "table5": _Spec(
        "table5_errors_by_family.csv",
        ("label", "family", "error_type", "role", "value", "decimals", "source"),
        {"label": tuple(FAMILY_LABELS), "family": FAMILIES, "error_type": (*ERROR_TYPES, "total"),
         "role": ("count", "row_total"), "source": ("Table 5",)},
    ),
    "table6": _Spec(
        "table6_error_performance.csv",
        ("label", "error_type", "metric", "value", "decimals", "source"),
        {"label": (*ERROR_LABELS.values(), "Correct"), "error_type": (*ERROR_TYPES, "correct"),
         "metric": ("n", "item_f1", "row_f1", "gap"), "source": ("Table 6",)},
    ),
    "family_item_f1": _Spec(
        "family_item_f1.csv", ("label", "family", "value", "decimals", "source"), {"family": FAMILIES}
    ),
    "cardinality": _Spec(
        "cardinality.csv",
        ("bin", "label", "quantity", "value", "decimals", "source"),
        {"bin": BINS, "quantity": ("tasks", "share", "item_f1", "row_f1")},
        optional_value=True,
    ),
    "dataset_stats": _Spec(
        "dataset_stats.csv",
        ("statistic", "subject", "value", "decimals", "unit", "source"),
        {"statistic": ("tasks", "ecosystems", "families", "share", "min_rows", "max_rows", "mean_rows",
                       "median_rows", "tasks_at_most_7_rows", "share_at_most_7_rows")},
    ),
    "text_numbers": _Spec(
        "text_numbers.csv",
        ("id", "value", "decimals", "unit", "kind", "claim", "source", "quote"),
        {"unit": _TEXT_UNITS, "kind": _TEXT_KINDS},
    ),
}

#: Names accepted by :func:`load`, in the paper's order of artefacts.
NAMES: tuple[str, ...] = tuple(_SPECS)

# Pairs that must agree within a row: (column, column, mapping).
_PAIRS = {
    "table2": [("system", "group", _GROUPS)],
    "table4": [("label", "system", {**SYSTEM_LABELS, "Total": ""})],
    "table5": [("label", "family", FAMILY_LABELS)],
    "table6": [("error_type", "label", {**ERROR_LABELS, "correct": "Correct"})],
}


def data_dir() -> Path:
    """The folder holding the reference CSV files (shipped with the package).

    Returns
    -------
    Path
        ``data/reference`` of the source tree, installed as the package data
        ``sgr_kit.data.reference`` (:func:`sgr_kit.resources.reference_dir`).

    Examples
    --------
    >>> data_dir().name
    'reference'
    """
    return reference_dir()


def _printed_decimals(text: str) -> int:
    return len(text.split(".", 1)[1]) if "." in text else 0


def _check_number(text: str, decimals: str, label: str, *, optional: bool) -> None:
    if optional and text == "" and decimals == "":
        return
    try:
        number = Decimal(text)
    except InvalidOperation:
        raise SgrKitError(f"{label}: expected a number in column 'value', found {text!r}") from None
    if not number.is_finite() or text.strip() != text or "e" in text.lower():
        raise SgrKitError(f"{label}: expected a plain decimal number in column 'value', found {text!r}")
    if decimals != str(_printed_decimals(text)):
        raise SgrKitError(
            f"{label}: column 'decimals' must give the printed decimals of {text!r} "
            f"({_printed_decimals(text)}), found {decimals!r}"
        )


def load(name: str, *, directory: str | Path | None = None) -> pd.DataFrame:
    """Load one reference file as a checked, tidy DataFrame.

    Parameters
    ----------
    name : str
        One of :data:`NAMES` (``"table2"``, ``"cardinality"``, ...).
    directory : str or Path, optional
        Folder holding the CSV files; default :func:`data_dir`.

    Returns
    -------
    DataFrame
        The file's columns in file order; ``value`` as float (percent points or
        counts, NaN where the paper publishes nothing), ``decimals`` as a nullable
        integer, ``position`` (Table 3) as integer, every other column as text.

    Raises
    ------
    SgrKitError
        Unknown name, missing file, or a file that fails the checks (the message
        names the file and line).

    Examples
    --------
    >>> t2 = load("table2")
    >>> t2.query("system == 'GPT-5.5' and variant == 'overall'")["value"].tolist()
    [66.18]
    """
    if name not in _SPECS:
        raise SgrKitError(f"reference table {name!r}: expected one of {', '.join(NAMES)}")
    spec = _SPECS[name]
    path = Path(directory) if directory is not None else data_dir()
    path = path / spec.file
    if not path.is_file():
        raise SgrKitError(
            f"reference data file {path} not found: the paper's tables ship with the package "
            "(sgr_kit.data.reference); reinstall sgr-kit"
        )
    raw = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8")
    if tuple(raw.columns) != spec.columns:
        raise SgrKitError(
            f"{where(path, 1)}: expected columns {', '.join(spec.columns)}, found {', '.join(raw.columns)}"
        )
    if raw.empty:
        raise SgrKitError(f"{path}: expected at least one data row, found none")
    pairs = _PAIRS.get(name, [])
    for i, row in enumerate(raw.itertuples(index=False), start=2):
        rec = row._asdict()
        label = where(path, i)
        for column, allowed in spec.choices.items():
            if rec[column] not in allowed:
                raise SgrKitError(
                    f"{label}: column {column!r} must be one of {', '.join(map(repr, allowed))}, "
                    f"found {rec[column]!r}"
                )
        for left, right, mapping in pairs:
            if mapping.get(rec[left]) != rec[right]:
                raise SgrKitError(
                    f"{label}: {left} {rec[left]!r} goes with {right} {mapping.get(rec[left])!r}, "
                    f"found {rec[right]!r}"
                )
        if spec.numbered:
            _check_number(rec["value"], rec["decimals"], label, optional=spec.optional_value)
        for column in spec.integers:
            if not rec[column].isdigit():
                raise SgrKitError(f"{label}: expected a whole number in column {column!r}, found {rec[column]!r}")
        if not rec.get("source", "x").strip():
            raise SgrKitError(f"{label}: column 'source' is empty")
    if name == "text_numbers" and raw["id"].duplicated().any():
        dup = raw.loc[raw["id"].duplicated(), "id"].iloc[0]
        raise SgrKitError(f"{path}: ids must be unique, found {dup!r} twice")
    out = raw.copy()
    if spec.numbered:
        blank = out["value"] == ""
        out["value"] = pd.to_numeric(out["value"].mask(blank)).astype(float)
        out["decimals"] = pd.to_numeric(out["decimals"].mask(blank)).astype("Int64")
    for column in spec.integers:
        out[column] = out[column].astype(int)
    return out


def table1() -> pd.DataFrame:
    """Table 1, the comparison with prior benchmarks.

    Returns
    -------
    DataFrame
        ``benchmark, attribute, value, source``: 8 benchmarks x 4 attributes
        (``primary_focus``, ``expert_data_retrieval_sites``, ``state_gated_evidence``,
        ``output_target``); ``value`` is text, the check marks stored as ``yes`` / ``no``.

    Examples
    --------
    >>> t = table1()
    >>> t.query("benchmark == 'SGR-Bench' and attribute == 'state_gated_evidence'")["value"].item()
    'yes'
    """
    return load("table1")


def table2() -> pd.DataFrame:
    """Table 2, the main results.

    Returns
    -------
    DataFrame
        ``system, group, variant, metric, value, decimals, source``; ``group`` is
        ``cli`` or ``commercial``, ``variant`` is ``constraint``, ``goal`` or
        ``overall`` (Overall has Item-F1 only, as printed).

    Examples
    --------
    >>> t = table2()
    >>> len(t), t["system"].nunique()
    (77, 11)
    """
    return load("table2")


def table3() -> pd.DataFrame:
    """Table 3, the per-model averages over all tasks (Appendix E).

    Returns
    -------
    DataFrame
        ``position, system, metric, value, decimals, source``; ``position`` is the
        printed row order (1 = first row).

    Examples
    --------
    >>> table3().query("position == 1")["system"].unique().tolist()
    ['GPT-5.5']
    """
    return load("table3")


def table4() -> pd.DataFrame:
    """Table 4, the audit's error counts by model (Appendix H).

    Returns
    -------
    DataFrame
        ``label, system, error_type, role, value, decimals, source``; ``label`` is
        the printed model label (see :data:`SYSTEM_LABELS`), ``error_type`` one of
        :data:`ERROR_TYPES`, ``fail`` (the Fail column) or ``correct`` (Corr.);
        ``role`` is ``count``, ``row_total`` (the Fail column) or ``column_total``
        (the Total row, whose ``system`` is empty).

    Examples
    --------
    >>> t = table4()
    >>> t.query("role == 'column_total' and error_type == 'fail'")["value"].item()
    156.0
    """
    return load("table4")


def table5() -> pd.DataFrame:
    """Table 5, the audit's error counts by source family (Appendix I).

    Returns
    -------
    DataFrame
        ``label, family, error_type, role, value, decimals, source``; ``error_type``
        ``total`` is the printed Total column (``role`` ``row_total``). The table
        has no Total row.

    Examples
    --------
    >>> float(table5().query("error_type == 'total'")["value"].sum())
    156.0
    """
    return load("table5")


def table6() -> pd.DataFrame:
    """Table 6, the mean performance by error type (Appendix J).

    Returns
    -------
    DataFrame
        ``label, error_type, metric, value, decimals, source``; ``error_type`` one of
        :data:`ERROR_TYPES` or ``correct``, ``metric`` one of ``n``, ``item_f1``,
        ``row_f1``, ``gap``.

    Examples
    --------
    >>> table6().query("error_type == 'criterion_mismatch' and metric == 'gap'")["value"].item()
    45.2
    """
    return load("table6")


def family_item_f1() -> pd.DataFrame:
    """The family Item-F1 means of section 4.2, Finding 3.

    Returns
    -------
    DataFrame
        ``label, family, value, decimals, source``, in the text's order. Vulnerability
        databases have no published mean and no row.

    Examples
    --------
    >>> float(family_item_f1().set_index("family")["value"]["scholarly archives"])
    63.1
    """
    return load("family_item_f1")


def cardinality() -> pd.DataFrame:
    """The cardinality bins of Appendix K.

    Returns
    -------
    DataFrame
        ``bin, label, quantity, value, decimals, source``; ``quantity`` is ``tasks``,
        ``share``, ``item_f1`` or ``row_f1``. The 11+ bin's Item-F1 and Row-F1 are
        not published: their ``value`` and ``decimals`` are missing.

    Examples
    --------
    >>> c = cardinality()
    >>> float(c.query("quantity == 'tasks'")["value"].sum())
    100.0
    >>> c.query("bin == '11+' and quantity == 'item_f1'")["value"].isna().item()
    True
    """
    return load("cardinality")


def dataset_stats() -> pd.DataFrame:
    """The dataset statistics of section 3.3.

    Returns
    -------
    DataFrame
        ``statistic, subject, value, decimals, unit, source``: tasks, ecosystems and
        families of the benchmark; tasks and share per family; tasks per variant;
        minimum, maximum, mean and median reference rows; tasks (and share) with at
        most 7 rows.

    Examples
    --------
    >>> s = dataset_stats()
    >>> s.query("statistic == 'mean_rows'")["value"].item()
    6.42
    """
    return load("dataset_stats")


def text_numbers() -> pd.DataFrame:
    """Every other number printed in the text, one row per number and place.

    Returns
    -------
    DataFrame
        ``id, value, decimals, unit, kind, claim, source, quote``; ``kind`` is
        ``repeat`` (repeats a number printed elsewhere), ``derived`` (follows from
        other published numbers) or ``standalone`` (nothing published checks it);
        ``quote`` is the sentence fragment that prints the number, verbatim.

    Examples
    --------
    >>> t = text_numbers()
    >>> row = t.set_index("id").loc["f1.mean_item_f1"]
    >>> float(row["value"]), row["source"], row["kind"]
    (47.85, 'Section 4.2, Finding 1', 'derived')
    """
    return load("text_numbers")
