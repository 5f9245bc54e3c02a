"""Every constant and table schema of sgr-kit, defined once.

The rest of the package imports these names; none is defined anywhere else.

- Vocabularies: :data:`VARIANTS`, :data:`FIELD_TYPES`, :data:`STATUSES`,
  :data:`FAILED_STATUSES`, :data:`UNSCORED_STATUSES`, :data:`PROFILES`, :data:`FAILURE_POLICIES`,
  :data:`METRICS`, :data:`VERDICTS`.
- Table schemas (column -> dtype): :data:`SCORE_COLUMNS` (``sgr-kit score``),
  :data:`CELL_COLUMNS` (``--cells``); the columns a scores table must have to be
  analysed: :data:`REQUIRED_SCORE_COLUMNS`; the audit table: :data:`AUDIT_COLUMNS`.
- Argument checks used once at each public entry: :func:`check_choice`,
  :func:`check_profile`, :func:`check_failure_policy`, :func:`check_metrics`.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import pandas as pd

from .errors import SgrKitError

__all__ = [
    "VARIANTS", "FIELD_TYPES", "STATUSES", "FAILED_STATUSES", "UNSCORED_STATUSES", "PROFILES", "FAILURE_POLICIES", "METRICS",
    "METRIC_LABELS", "VERDICTS", "TEXT_DTYPE", "SCORE_COLUMNS", "CELL_COLUMNS", "REQUIRED_SCORE_COLUMNS",
    "AUDIT_COLUMNS", "AUDIT_VERDICTS", "LANGUAGES", "SYNTHETIC_NOTE", "ALL_SYSTEMS", "VARIANT_GROUPS", "PAPER_TASKS",
    "PAPER_TASKS_PER_VARIANT", "ERROR_TYPES", "ERROR_LABELS", "AUDIT_LABELS", "AUDIT_TABLE_COLUMNS", "NOT_ANALYZABLE",
    "ANNOTATION_LABELS", "ANNOTATION_LABEL_NAMES", "LABEL_COLUMNS", "SAMPLE_COLUMNS", "AGREEMENT_COLUMNS",
    "AGREEMENT_MEASURES", "is_synthetic", "STEP_KINDS", "TOOL_KINDS", "STEP_COLUMNS", "SITE_REACH_COLUMNS",
    "check_choice", "check_profile", "check_failure_policy", "check_metrics",
]  # fmt: skip

#: The two variants of a base problem (section 3.1).
VARIANTS: tuple[str, ...] = ("constraint", "goal")
#: Column types a rubric or a rules file may declare.
FIELD_TYPES: tuple[str, ...] = ("string", "integer", "decimal", "id_list")
#: Status of a scored answer: the reference scorer's three, ``missing`` for no answer, and
#: ``scorer_error`` when scoring the answer itself failed (a fault of the scorer, never the answer's).
STATUSES: tuple[str, ...] = ("parsed", "empty", "parse_failure", "missing", "scorer_error")
#: Statuses without metrics (NaN).
FAILED_STATUSES: tuple[str, ...] = ("parse_failure", "missing", "scorer_error")
#: Failed statuses that are the scorer's fault: left out of every mean whatever the failure
#: policy (never counted as a zero); the failure policy decides only for the others.
UNSCORED_STATUSES: tuple[str, ...] = ("scorer_error",)
#: Scoring profiles, the default first.
PROFILES: tuple[str, ...] = ("paper", "strict")
#: How failed answers enter a mean (:mod:`sgr_kit.aggregate`), the default first.
FAILURE_POLICIES: tuple[str, ...] = ("zero", "exclude")
#: Variants of a result row: the two variants and both together.
VARIANT_GROUPS: tuple[str, ...] = (*VARIANTS, "overall")
#: The ``system`` value of result rows that pool every system (per problem, systems averaged first).
ALL_SYSTEMS = "all systems"
#: Tasks in the paper's benchmark, overall and per variant (section 3.3): a system scored on
#: fewer is flagged wherever it is set beside the paper's numbers.
PAPER_TASKS = 100
PAPER_TASKS_PER_VARIANT = 50
#: The paper's six error types (Appendix G), as codes, and the paper's names for them (Table 6).
ERROR_TYPES: tuple[str, ...] = (
    "scope_drift", "criterion_mismatch", "intent_rewriting", "page_misreading", "dependency_error", "final_answer",
)
ERROR_LABELS: dict[str, str] = {
    "scope_drift": "Retrieval-Scope Drift",
    "criterion_mismatch": "Criterion Mismatch",
    "intent_rewriting": "Intent Rewriting",
    "page_misreading": "In-Page Evidence Misreading",
    "dependency_error": "Retrieval Dependency Errors",
    "final_answer": "Final Answer Composition",
}
#: Labels of an audit-label file: the six error types, then ``correct``.
AUDIT_LABELS: tuple[str, ...] = (*ERROR_TYPES, "correct")
#: The label an annotator gives an answer whose trajectory cannot be judged (no trace, truncated);
#: never part of an audit file's error profile.
NOT_ANALYZABLE = "not_analyzable"
#: Labels of an annotator's label file: the audit labels, then ``not_analyzable``.
ANNOTATION_LABELS: tuple[str, ...] = (*AUDIT_LABELS, NOT_ANALYZABLE)
#: How each annotation label is shown (the paper's names, Appendix G).
ANNOTATION_LABEL_NAMES: dict[str, str] = {**ERROR_LABELS, "correct": "Correct", NOT_ANALYZABLE: "Not analyzable"}
#: Columns of an annotator's label file (:mod:`sgr_kit.annotate.store`), in file order.
LABEL_COLUMNS: tuple[str, ...] = ("system", "task_id", "repeat", "annotator", "label", "note", "labelled_at")
#: Columns of an annotation sheet (``sgr-kit sample``): the fixed three, then the slot and its strata.
SAMPLE_COLUMNS: tuple[str, ...] = ("system", "task_id", "repeat", "slot", "family", "variant")
#: Agreement measures (:func:`sgr_kit.stats.agreement`), in table order.
AGREEMENT_MEASURES: tuple[str, ...] = ("percent_agreement", "cohen_kappa", "fleiss_kappa", "krippendorff_alpha")
#: Columns of the agreement table.
AGREEMENT_COLUMNS: tuple[str, ...] = ("measure", "annotators", "n_items", "value", "ci_low", "ci_high", "note")
#: Columns of an audit-label table (:func:`sgr_kit.load.load_audit`).
AUDIT_TABLE_COLUMNS: tuple[str, ...] = ("system", "task_id", "base_id", "family", "label", "line", "synthetic")
#: The paper's three metrics (Appendix A), as column names.
METRICS: tuple[str, ...] = ("item_f1", "row_f1", "poa")
#: How the paper prints the metrics' names.
METRIC_LABELS = {"item_f1": "Item-F1", "row_f1": "Row-F1", "poa": "P.O.A."}
#: Verdict of one cell record (see :mod:`sgr_kit.score.answer`).
VERDICTS: tuple[str, ...] = ("match", "wrong", "missing", "extra_row", "duplicate_row", "omitted_row", "extra_cell")

#: Text columns use pandas' default string dtype ("str" from pandas 3, object before).
TEXT_DTYPE = "str" if int(pd.__version__.split(".")[0]) >= 3 else "object"
_TEXT = TEXT_DTYPE

#: Columns of the scores table (``sgr-kit score --out``) and their dtypes.
SCORE_COLUMNS: dict[str, str] = {
    "system": _TEXT, "task_id": _TEXT, "base_id": _TEXT, "variant": _TEXT, "domain": _TEXT,
    "ecosystem": _TEXT, "family": _TEXT, "gold_rows": "int64", "bin": _TEXT, "repeat": "int64",
    "status": _TEXT, "item_f1": "float64", "row_f1": "float64", "poa": "float64",
    "correct_fields": "int64", "gold_fields": "int64", "pred_fields": "int64", "correct_rows": "int64",
    "pred_rows": "int64", "shared_keys": "int64", "correct_pairs": "int64", "pairs": "int64",
    "reason": _TEXT, "synthetic": "bool", "language": _TEXT,
}  # fmt: skip
#: The release's languages (``data_en/``, ``data_zh/``); a scores table without a ``language``
#: column (written before it existed) is English.
LANGUAGES: tuple[str, ...] = ("en", "zh")
#: Columns of the cells table (``sgr-kit score --cells``) and their dtypes (absent values: NaN / <NA>).
CELL_COLUMNS: dict[str, str] = {
    "system": _TEXT, "task_id": _TEXT, "repeat": "int64", "pred_row": "Int64", "gold_row": "Int64",
    "column": _TEXT, "raw": _TEXT, "canonical": _TEXT, "reference": _TEXT, "verdict": _TEXT, "language": _TEXT,
}  # fmt: skip
#: Columns a scores table must have to be read back and analysed.
REQUIRED_SCORE_COLUMNS: tuple[str, ...] = ("system", "task_id", "variant", "repeat", "status", *METRICS)
#: Kinds of a trajectory step (:mod:`sgr_kit.trajectories`): a web search, a page fetch, a PDF read,
#: any other tool call, a model message, and the final answer.
STEP_KINDS: tuple[str, ...] = ("search", "fetch", "pdf", "tool", "message", "answer")
#: The step kinds that are tool calls.
TOOL_KINDS: tuple[str, ...] = ("search", "fetch", "pdf", "tool")
#: Columns of the steps table (:func:`sgr_kit.trajectories.load_trajectories`) and their dtypes; absent
#: text is ``""``, an unknown time or token count NaN / <NA>.
STEP_COLUMNS: dict[str, str] = {
    "system": _TEXT, "task_id": _TEXT, "repeat": "int64", "step": "int64", "kind": _TEXT, "tool": _TEXT,
    "url": _TEXT, "host": _TEXT, "query": _TEXT, "text": _TEXT, "t": "float64", "tokens": "Int64",
    "input_tokens": "Int64", "cached_input_tokens": "Int64", "output_tokens": "Int64", "reasoning_tokens": "Int64",
}  # fmt: skip
#: Columns of :func:`sgr_kit.trajectories.site_reach` (one row per answer), in order.
SITE_REACH_COLUMNS: tuple[str, ...] = (
    "system", "task_id", "repeat", "steps", "tool_calls", "hosts", "reached_site", "first_site_step",
    "site_fetch_share", "searches", "fetches", "pdfs", "other_tools", "queries", "time", "tokens",
)  # fmt: skip
#: Columns of the audit of the paper's numbers (:func:`sgr_kit.reference.audit`).
AUDIT_COLUMNS: tuple[str, ...] = (
    "id", "claim", "location", "published", "recomputed", "difference", "tolerance", "verdict", "kind", "inputs",
)  # fmt: skip
#: The label every table, page and figure built from simulated data carries.
SYNTHETIC_NOTE = (
    "SYNTHETIC DATA: these tasks and answers are simulated by `sgr-kit demo` "
    "(calibrated to the paper's published means); they are not real agent runs."
)
#: Verdicts of the audit: a derived number follows from its inputs within rounding, or not.
AUDIT_VERDICTS: tuple[str, ...] = ("consistent", "inconsistent")


def check_choice(value: object, choices: Sequence[str], *, name: str) -> str:
    """Return ``value`` when it is one of ``choices``, else raise :class:`SgrKitError` naming ``name``.

    Examples
    --------
    >>> check_choice("zero", FAILURE_POLICIES, name="failure_policy")
    'zero'
    >>> check_choice("drop", FAILURE_POLICIES, name="failure_policy")
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: failure_policy must be one of 'zero', 'exclude'; found 'drop'
    """
    if not isinstance(value, str) or value not in choices:
        raise SgrKitError(f"{name} must be one of {', '.join(map(repr, choices))}; found {value!r}")
    return value


def check_profile(profile: object) -> str:
    """Return ``profile`` if it is a known scoring profile (:data:`PROFILES`), else raise.

    Examples
    --------
    >>> check_profile("strict")
    'strict'
    """
    return check_choice(profile, PROFILES, name="profile")


def check_failure_policy(failure_policy: object) -> str:
    """Return ``failure_policy`` if it is one of :data:`FAILURE_POLICIES`, else raise."""
    return check_choice(failure_policy, FAILURE_POLICIES, name="failure_policy")


def check_metrics(metrics: str | Iterable[str]) -> tuple[str, ...]:
    """Return ``metrics`` as a tuple of known metric names (one name is accepted as well).

    Examples
    --------
    >>> check_metrics("poa")
    ('poa',)
    >>> check_metrics(["item_f1", "f1"])
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: metric must be one of 'item_f1', 'row_f1', 'poa'; found 'f1'
    """
    names = (metrics,) if isinstance(metrics, str) else tuple(metrics)
    if not names:
        raise SgrKitError(f"metrics: expected at least one of {', '.join(METRICS)}; found none")
    return tuple(check_choice(m, METRICS, name="metric") for m in names)


def is_synthetic(*tables: pd.DataFrame | None) -> bool:
    """True when any row of any of ``tables`` is marked synthetic (a true ``synthetic`` column).

    Examples
    --------
    >>> is_synthetic(pd.DataFrame({"synthetic": [False, True]})), is_synthetic(pd.DataFrame({"x": [1]}), None)
    (True, False)
    """
    return any(
        t is not None and "synthetic" in t.columns and bool(t["synthetic"].fillna(False).astype(bool).any())
        for t in tables
    )
