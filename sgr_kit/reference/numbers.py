"""Printed numbers and their rounding: the arithmetic of the consistency audit.

A published number is held as the exact value of its printed text with the
largest rounding error that text allows (:class:`Printed`); a recomputation
carries the worst-case error propagated from its printed inputs
(:class:`Estimate`). :func:`claim_row` compares the two under the tolerance rule
of :mod:`sgr_kit.reference.audit`. All arithmetic is exact (fractions).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Mapping

import pandas as pd

from ..schema import AUDIT_VERDICTS

__all__ = ["ZERO", "half_unit", "rounding_tolerance", "Estimate", "Printed", "printed", "exact",
           "mean", "share", "listing", "PublishedNumbers", "claim_row", "rank_of", "inversions", "clip"]

ZERO = Fraction(0)


def half_unit(decimals: int | None) -> Fraction:
    """Half a unit in the last printed digit: the largest rounding error of a printed number.

    Parameters
    ----------
    decimals : int or None
        Printed decimals; None for an exact number (a count), whose half-unit is 0.

    Returns
    -------
    Fraction

    Examples
    --------
    >>> half_unit(2), half_unit(0), half_unit(None)
    (Fraction(1, 200), Fraction(1, 2), Fraction(0, 1))
    """
    return ZERO if decimals is None else Fraction(1, 2 * 10**decimals)


def rounding_tolerance(decimals: int | None, *, inputs: Iterable[tuple[Fraction | int, int | None]] = ()) -> Fraction:
    """The audit's tolerance for a published value recomputed as a weighted sum of printed inputs.

    Parameters
    ----------
    decimals : int or None
        Printed decimals of the published value; None when it is an exact count.
    inputs : iterable of (weight, decimals)
        One pair per printed input of the recomputation ``sum(weight * input)``;
        ``decimals=None`` marks an exact input (a count).

    Returns
    -------
    Fraction
        ``half_unit(decimals) + sum(|weight| * half_unit(input decimals))``.

    Examples
    --------
    Table 2's Overall (2 decimals) as the mean of two 2-decimal cells:

    >>> rounding_tolerance(2, inputs=[(Fraction(1, 2), 2), (Fraction(1, 2), 2)])
    Fraction(1, 100)

    A 1-decimal gap as the difference of two 1-decimal values, and a 1-decimal share
    of exact counts:

    >>> rounding_tolerance(1, inputs=[(1, 1), (-1, 1)]), rounding_tolerance(1, inputs=[(1, None)])
    (Fraction(3, 20), Fraction(1, 20))
    """
    return half_unit(decimals) + sum((abs(Fraction(w)) * half_unit(d) for w, d in inputs), ZERO)


@dataclass(frozen=True)
class Estimate:
    """A recomputed value and the worst-case rounding error carried from its printed inputs."""

    value: Fraction
    err: Fraction = ZERO

    def __add__(self, other: Estimate) -> Estimate:
        return Estimate(self.value + other.value, self.err + other.err)

    def __sub__(self, other: Estimate) -> Estimate:
        return Estimate(self.value - other.value, self.err + other.err)

    def scale(self, k: Fraction | int) -> Estimate:
        return Estimate(self.value * k, self.err * abs(Fraction(k)))


@dataclass(frozen=True)
class Printed:
    """A published number: exact value of its printed text, rounding half-unit, printed text."""

    value: Fraction
    decimals: int | None
    printed: str

    @property
    def est(self) -> Estimate:
        return Estimate(self.value, half_unit(self.decimals))


def printed(value: float, decimals: int, *, exact: bool = False) -> Printed:
    """The number ``value`` as the paper prints it with ``decimals`` decimals (``exact``: no rounding error)."""
    decimals = int(decimals)
    printed = f"{value:.{decimals}f}"
    return Printed(Fraction(printed), None if exact else decimals, printed)


def exact(value: Fraction | int) -> Printed:
    """A count or other exact number: no rounding error."""
    return Printed(Fraction(value), None, str(value))


def mean(nums: Iterable[Printed]) -> Estimate:
    """The mean of printed numbers, carrying their worst-case rounding error."""
    items = [n.est for n in nums]
    total = Estimate(ZERO)
    for e in items:
        total = total + e
    return total.scale(Fraction(1, len(items)))


def share(part: Printed, whole: Printed) -> Estimate:
    """``part`` as a percent of ``whole`` (counts: exact)."""
    return Estimate(100 * part.value / whole.value)  # counts are exact: no carried error


def listing(nums: Iterable[Printed]) -> str:
    """The printed texts of numbers, joined by commas (for the audit's ``inputs`` column)."""
    return ", ".join(n.printed for n in nums)


class PublishedNumbers:
    """Published numbers by their coordinates, read from the reference tables."""

    def __init__(self, frames: Mapping[str, pd.DataFrame]):
        f = frames
        self.t2 = {(r.system, r.variant, r.metric): printed(r.value, r.decimals) for r in f["table2"].itertuples()}
        self.t3 = {(r.system, r.metric): printed(r.value, r.decimals) for r in f["table3"].itertuples()}
        self.t3_order = list(dict.fromkeys(f["table3"].sort_values("position", kind="stable")["system"]))
        self.t4 = {(r.label, r.error_type): printed(r.value, 0, exact=True) for r in f["table4"].itertuples()}
        self.t4_labels = [x for x in dict.fromkeys(f["table4"]["label"]) if x != "Total"]
        self.t5 = {(r.family, r.error_type): printed(r.value, 0, exact=True) for r in f["table5"].itertuples()}
        self.t5_families = list(dict.fromkeys(f["table5"]["family"]))
        self.t6 = {(r.error_type, r.metric): printed(r.value, r.decimals, exact=r.metric == "n")
                   for r in f["table6"].itertuples()}
        self.fam = {r.family: printed(r.value, r.decimals) for r in f["family_item_f1"].itertuples()}
        self.bins = {(r.bin, r.quantity): printed(r.value, r.decimals, exact=r.quantity == "tasks")
                     for r in f["cardinality"].itertuples() if not pd.isna(r.value)}
        self.stats = {(r.statistic, r.subject): printed(r.value, r.decimals, exact=r.decimals == 0)
                      for r in f["dataset_stats"].itertuples()}
        self.text = {r.id: r for r in f["text_numbers"].itertuples()}
        self.systems = list(dict.fromkeys(f["table2"]["system"]))
        self.groups = dict(zip(f["table2"]["system"], f["table2"]["group"]))

    def text_num(self, key: str) -> Printed:
        r = self.text[key]
        return printed(r.value, r.decimals, exact=r.decimals == 0 and r.unit not in ("percent", "points"))

    def t2_col(self, variant: str, metric: str, systems: Iterable[str] | None = None) -> list[Printed]:
        return [self.t2[s, variant, metric] for s in (self.systems if systems is None else systems)]


def claim_row(cid: str, claim: str, location: str, kind: str, published: Printed, est: Estimate, inputs: str,
           side: str = "equal") -> dict:
    """One row of the audit: the published number beside its recomputation, the difference
    (one-sided with ``side`` ``"above"`` or ``"below"``), the tolerance (half a unit of the
    last printed digit plus the recomputation's error) and the verdict.
    """
    tol = half_unit(published.decimals) + est.err
    raw = published.value - est.value
    diff = {"equal": raw, "above": max(raw, ZERO), "below": min(raw, ZERO)}[side]
    return {
        "id": cid, "claim": claim, "location": location, "published": published.value, "recomputed": est.value,
        "difference": diff, "tolerance": tol, "verdict": AUDIT_VERDICTS[abs(diff) > tol], "kind": kind, "inputs": inputs,
    }


def rank_of(value: Fraction, others: Iterable[Fraction], *, lowest: bool = False) -> int:
    """1 + number of strictly better values (higher, or lower with ``lowest``)."""
    return 1 + sum((o < value) if lowest else (o > value) for o in others)


def inversions(values: list[Fraction]) -> int:
    """Pairs printed in the wrong order for a descending sort."""
    return sum(values[i] < values[j] for i in range(len(values)) for j in range(i + 1, len(values)))


def clip(value: Fraction, lo: Fraction, hi: Fraction) -> Fraction:
    """``value`` limited to ``[lo, hi]``."""
    return min(max(value, lo), hi)
