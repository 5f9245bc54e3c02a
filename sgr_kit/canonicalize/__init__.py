"""Canonicalize cells: raw cell -> canonical string, one function per schema column.

Two profiles:

``"strict"``
    the benchmark's own deterministic scorer (:mod:`sgr_kit.canonicalize.strict`):
    :func:`clean_cell` then the column's rule (:func:`apply_rule`).
``"paper"``
    the reviewer-style canonicalization of the paper's section 3.4
    (:mod:`sgr_kit.canonicalize.paper`), which looks at the reference's raw rows to
    decide per column whether values are numbers, dates, identifiers...

Canonical strings are compared with ``==``. A numeric tolerance given by user
rules is not part of the canonical string: it is applied when cells are
compared (see :func:`sgr_kit.score.score_answer`).
"""

from __future__ import annotations

import importlib
import importlib.util
from decimal import Decimal
from typing import Callable, Mapping, Sequence

from ..errors import SgrKitError
from ..types import Schema
from .strict import INVALID, INVALID_UNIT, apply_rule, clean_cell, rule_function, strict_canonicalizers

__all__ = [
    "PROFILES",
    "clean_cell",
    "apply_rule",
    "rule_function",
    "strict_canonicalizers",
    "column_canonicalizers",
    "check_profile",
    "INVALID",
    "INVALID_UNIT",
]

#: Scoring profiles, the default first.
PROFILES: tuple[str, ...] = ("paper", "strict")


def check_profile(profile: object) -> str:
    """Return ``profile`` if it is a known scoring profile, else raise :class:`SgrKitError`.

    Examples
    --------
    >>> check_profile("strict")
    'strict'
    """
    if profile not in PROFILES:
        raise SgrKitError(f"profile must be one of {', '.join(map(repr, PROFILES))}; found {profile!r}")
    return profile  # type: ignore[return-value]


def _paper_module():
    # The paper profile's module is optional: without it the strict rules apply.
    # When it exists, its own import errors are not hidden.
    if importlib.util.find_spec(f"{__name__}.paper") is None:
        return None
    return importlib.import_module(f"{__name__}.paper")


def column_canonicalizers(
    schema: Schema,
    *,
    profile: str,
    reference_rows: Sequence[Sequence[str]],
    tolerance: Mapping[str, Decimal] | None = None,
) -> list[Callable[[str], str]]:
    """One function per schema column mapping a raw cell to its canonical string.

    Parameters
    ----------
    schema : Schema
        The task's schema (after any user rules).
    profile : {"paper", "strict"}
    reference_rows : sequence of sequence of str
        The reference's raw parsed rows; the ``paper`` profile uses them to
        decide each column's value kind, the ``strict`` profile ignores them.
    tolerance : mapping of str to Decimal, optional
        Absolute numeric tolerance per column. It does not change canonical
        strings (comparison applies it); it is checked here so that a tolerance
        on an unknown column is reported.

    Returns
    -------
    list of callable
        In schema column order; each remembers its results per distinct raw
        cell (a bounded memo), as the cells of answers to one task repeat.

    Examples
    --------
    >>> from sgr_kit.types import FieldRule
    >>> schema = Schema(columns=("id", "v"), row_key=("id",), fields={"v": FieldRule(type="decimal")})
    >>> f = column_canonicalizers(schema, profile="strict", reference_rows=[("a", "8.40")])
    >>> f[0]("**a**"), f[1]("8.400")
    ('a', '8.4')
    """
    check_profile(profile)
    if not isinstance(schema, Schema):
        raise SgrKitError(f"expected a Schema, found {type(schema).__name__}")
    for column, value in (tolerance or {}).items():
        if column not in schema.columns:
            raise SgrKitError(
                f"tolerance names column {column!r}, which is not in the schema ({', '.join(schema.columns)})"
            )
        if not isinstance(value, (Decimal, int)) or isinstance(value, bool) or value < 0:
            raise SgrKitError(f"tolerance of column {column!r}: expected a Decimal >= 0, found {value!r}")
    if profile == "paper":
        paper = _paper_module()
        if paper is not None:
            return list(paper.paper_canonicalizers(schema, reference_rows=reference_rows))
    return [_memoized(f) for f in strict_canonicalizers(schema)]


#: Distinct raw cells remembered per column before the memo starts afresh.
_MEMO_LIMIT = 50_000


def _memoized(function: Callable[[str], str]) -> Callable[[str], str]:
    """``function`` remembering its results per distinct raw cell.

    Answers to one task repeat the same cells many times (every system that
    gets a value right writes it the same way), so a task's canonicalizers see
    few distinct cells; the memo is bounded so that memory stays flat.
    """
    memo: dict[str, str] = {}

    def canonical(raw: str) -> str:
        try:
            return memo[raw]
        except KeyError:
            if len(memo) >= _MEMO_LIMIT:
                memo.clear()
            value = memo[raw] = function(raw)
            return value

    return canonical
