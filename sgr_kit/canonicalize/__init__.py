"""Canonicalize cells: raw cell -> canonical string, one function per schema column.

Two profiles:

``"strict"``
    the benchmark's own deterministic scorer (:mod:`sgr_kit.canonicalize.strict`):
    :func:`sgr_kit.parse.cells.clean_cell` then the column's rule (:func:`apply_rule`).
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
from ..schema import check_profile
from ..types import Schema
from .memo import memoized
from .strict import INVALID, INVALID_UNIT, apply_rule, rule_function, strict_canonicalizers

__all__ = [
    "apply_rule",
    "rule_function",
    "strict_canonicalizers",
    "column_canonicalizers",
    "INVALID",
    "INVALID_UNIT",
]

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
    functions = None
    if profile == "paper":
        paper = _paper_module()
        if paper is not None:
            functions = paper.paper_canonicalizers(schema, reference_rows=reference_rows)
    if functions is None:
        functions = strict_canonicalizers(schema)
    return [memoized(f) for f in functions]
