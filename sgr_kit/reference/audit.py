"""A consistency audit of the paper's published numbers.

Every number the paper derives from others (each Overall from its variant cells,
Table 3 from Table 2, the means, gaps, deltas and shares of the text, the totals
of Tables 4-5, the gaps of Table 6, the dataset and cardinality statistics) is
recomputed from its published components and compared with the printed value.
The paper is not assumed to be right: a number that does not follow from its
components is reported as ``inconsistent``.

Tolerance rule
--------------
A printed number carries rounding error: at most half a unit in its last printed
digit (0.005 for ``66.18``, 0.5 for ``75%``); counts are exact. A claim is
``consistent`` when ``|difference| <= tolerance``, where

    tolerance = half a unit in the last digit of the published value (0 for a count)
                + sum over the printed inputs of |weight| x half a unit of that input

for a recomputation that is a weighted sum of printed inputs: a mean of rounded
values adds half a unit of the inputs' last digit, a difference of two rounded
values adds both half-units, a share of exact counts adds nothing (see
:func:`rounding_tolerance`). Ranks and orders are taken on the printed values.
All arithmetic is exact (fractions); floats appear only in the returned table.

Kinds of claim (column ``kind``): ``derivation`` (a value recomputed from its
components), ``equality`` (a number printed twice must agree), ``bound`` (an
inequality or a feasible range; ``difference`` is the part of
``published - recomputed`` that breaks it, 0 when it holds) and ``ordering``
(ranks, sort orders and counts of exceptions, which must hold exactly).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Mapping

import pandas as pd

from ..errors import SgrKitError
from . import tables as T

__all__ = ["COLUMNS", "VERDICTS", "half_unit", "rounding_tolerance", "audit", "audit_summary"]

#: Columns of :func:`audit`.
COLUMNS = ("id", "claim", "location", "published", "recomputed", "difference", "tolerance", "verdict", "kind",
           "inputs")
VERDICTS = ("consistent", "inconsistent")
_ZERO = Fraction(0)


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
    return _ZERO if decimals is None else Fraction(1, 2 * 10**decimals)


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
    return half_unit(decimals) + sum((abs(Fraction(w)) * half_unit(d) for w, d in inputs), _ZERO)


@dataclass(frozen=True)
class _Est:
    """A recomputed value and the worst-case rounding error carried from its printed inputs."""

    value: Fraction
    err: Fraction = _ZERO

    def __add__(self, other: _Est) -> _Est:
        return _Est(self.value + other.value, self.err + other.err)

    def __sub__(self, other: _Est) -> _Est:
        return _Est(self.value - other.value, self.err + other.err)

    def scale(self, k: Fraction | int) -> _Est:
        return _Est(self.value * k, self.err * abs(Fraction(k)))


@dataclass(frozen=True)
class _Num:
    """A published number: exact value of its printed text, rounding half-unit, printed text."""

    value: Fraction
    decimals: int | None
    printed: str

    @property
    def est(self) -> _Est:
        return _Est(self.value, half_unit(self.decimals))


def _num(value: float, decimals: int, *, exact: bool = False) -> _Num:
    decimals = int(decimals)
    printed = f"{value:.{decimals}f}"
    return _Num(Fraction(printed), None if exact else decimals, printed)


def _exact(value: Fraction | int) -> _Num:
    return _Num(Fraction(value), None, str(value))


def _mean(nums: Iterable[_Num]) -> _Est:
    items = [n.est for n in nums]
    total = _Est(_ZERO)
    for e in items:
        total = total + e
    return total.scale(Fraction(1, len(items)))


def _share(part: _Num, whole: _Num) -> _Est:
    return _Est(100 * part.value / whole.value)  # counts are exact: no carried error


def _values(nums: Iterable[_Num]) -> str:
    return ", ".join(n.printed for n in nums)


class _Paper:
    """Published numbers by their coordinates, read from the reference tables."""

    def __init__(self, frames: Mapping[str, pd.DataFrame]):
        f = frames
        self.t2 = {(r.system, r.variant, r.metric): _num(r.value, r.decimals) for r in f["table2"].itertuples()}
        self.t3 = {(r.system, r.metric): _num(r.value, r.decimals) for r in f["table3"].itertuples()}
        self.t3_order = list(dict.fromkeys(f["table3"].sort_values("position", kind="stable")["system"]))
        self.t4 = {(r.label, r.error_type): _num(r.value, 0, exact=True) for r in f["table4"].itertuples()}
        self.t4_labels = [x for x in dict.fromkeys(f["table4"]["label"]) if x != "Total"]
        self.t5 = {(r.family, r.error_type): _num(r.value, 0, exact=True) for r in f["table5"].itertuples()}
        self.t5_families = list(dict.fromkeys(f["table5"]["family"]))
        self.t6 = {(r.error_type, r.metric): _num(r.value, r.decimals, exact=r.metric == "n")
                   for r in f["table6"].itertuples()}
        self.fam = {r.family: _num(r.value, r.decimals) for r in f["family_item_f1"].itertuples()}
        self.bins = {(r.bin, r.quantity): _num(r.value, r.decimals, exact=r.quantity == "tasks")
                     for r in f["cardinality"].itertuples() if not pd.isna(r.value)}
        self.stats = {(r.statistic, r.subject): _num(r.value, r.decimals, exact=r.decimals == 0)
                      for r in f["dataset_stats"].itertuples()}
        self.text = {r.id: r for r in f["text_numbers"].itertuples()}
        self.systems = list(dict.fromkeys(f["table2"]["system"]))
        self.groups = dict(zip(f["table2"]["system"], f["table2"]["group"]))

    def text_num(self, key: str) -> _Num:
        r = self.text[key]
        return _num(r.value, r.decimals, exact=r.decimals == 0 and r.unit not in ("percent", "points"))

    def t2_col(self, variant: str, metric: str, systems: Iterable[str] | None = None) -> list[_Num]:
        return [self.t2[s, variant, metric] for s in (self.systems if systems is None else systems)]


def _claim(cid: str, claim: str, location: str, kind: str, published: _Num, est: _Est, inputs: str,
           side: str = "equal") -> dict:
    tol = half_unit(published.decimals) + est.err
    raw = published.value - est.value
    diff = {"equal": raw, "above": max(raw, _ZERO), "below": min(raw, _ZERO)}[side]
    return {
        "id": cid, "claim": claim, "location": location, "published": published.value, "recomputed": est.value,
        "difference": diff, "tolerance": tol, "verdict": VERDICTS[abs(diff) > tol], "kind": kind, "inputs": inputs,
    }


def _rank(value: Fraction, others: Iterable[Fraction], *, lowest: bool = False) -> int:
    """1 + number of strictly better values (higher, or lower with ``lowest``)."""
    return 1 + sum((o < value) if lowest else (o > value) for o in others)


def _inversions(values: list[Fraction]) -> int:
    """Pairs printed in the wrong order for a descending sort."""
    return sum(values[i] < values[j] for i in range(len(values)) for j in range(i + 1, len(values)))


def _clip(value: Fraction, lo: Fraction, hi: Fraction) -> Fraction:
    return min(max(value, lo), hi)


_M = {"item_f1": "Item-F1", "row_f1": "Row-F1", "poa": "P.O.A."}


def _table_claims(p: _Paper) -> list[dict]:
    """Tables 2-6: Overall cells, Table 3 from Table 2, totals, gaps and n."""
    out = []
    for s in p.systems:
        c, g = p.t2[s, "constraint", "item_f1"], p.t2[s, "goal", "item_f1"]
        out.append(_claim(
            f"table2.overall.{s}", f"{s}: Overall Item-F1 is the mean of its constraint-guided and goal-oriented "
            "Item-F1 (50 tasks each)", "Table 2", "derivation", p.t2[s, "overall", "item_f1"], _mean([c, g]),
            f"Table 2 {s}: constraint item_f1 {c.printed}, goal item_f1 {g.printed}"))
    for s in p.t3_order:
        o = p.t2[s, "overall", "item_f1"]
        out.append(_claim(f"table3.item_f1.{s}", f"{s}: Item-F1 equals Table 2's Overall", "Table 3", "equality",
                          p.t3[s, "item_f1"], o.est, f"Table 2 {s}: overall item_f1 {o.printed}"))
        for m in ("row_f1", "poa"):
            c, g = p.t2[s, "constraint", m], p.t2[s, "goal", m]
            out.append(_claim(f"table3.{m}.{s}", f"{s}: {_M[m]} is the mean of Table 2's two variant {_M[m]}",
                              "Table 3", "derivation", p.t3[s, m], _mean([c, g]),
                              f"Table 2 {s}: constraint {m} {c.printed}, goal {m} {g.printed}"))
    items = [p.t3[s, "item_f1"] for s in p.t3_order]
    out.append(_claim("table3.order", "rows are sorted by overall Item-F1, highest first: pairs out of order",
                      'Table 3 caption: "sorted by overall Item-F1"', "ordering", _exact(0),
                      _Est(Fraction(_inversions([n.value for n in items]))),
                      "Table 3 item_f1 in printed order: " + _values(items)))
    slots = p.text_num("t4cap.task_slots")
    for lab in p.t4_labels:
        parts = [p.t4[lab, t] for t in T.ERROR_TYPES]
        fail, corr = p.t4[lab, "fail"], p.t4[lab, "correct"]
        out.append(_claim(f"table4.fail.{lab}", f"{lab}: Fail is the sum of its six error-type counts", "Table 4",
                          "derivation", fail, _Est(sum(n.value for n in parts)), f"Table 4 {lab}: " + _values(parts)))
        out.append(_claim(f"table4.slots.{lab}", f"{lab}: Fail + Corr. equals the caption's 22 task slots per model",
                          "Table 4", "derivation", slots, _Est(fail.value + corr.value),
                          f"Table 4 {lab}: Fail {fail.printed}, Corr. {corr.printed}"))
    for t in (*T.ERROR_TYPES, "fail", "correct"):
        col = [p.t4[lab, t] for lab in p.t4_labels]
        out.append(_claim(f"table4.total.{t}", f"Total row, {t}: the sum over the eight models", "Table 4",
                          "derivation", p.t4["Total", t], _Est(sum(n.value for n in col)),
                          f"Table 4 {t} by model: " + _values(col)))
    for fam in p.t5_families:
        parts = [p.t5[fam, t] for t in T.ERROR_TYPES]
        out.append(_claim(f"table5.total.{fam}", f"{fam}: Total is the sum of its six error-type counts", "Table 5",
                          "derivation", p.t5[fam, "total"], _Est(sum(n.value for n in parts)),
                          f"Table 5 {fam}: " + _values(parts)))
    for t in (*T.ERROR_TYPES, "total"):
        col = [p.t5[fam, t] for fam in p.t5_families]
        key = "fail" if t == "total" else t
        out.append(_claim(f"table5.column.{t}", f"{t} summed over the five families equals Table 4's Total row",
                          "Table 5", "derivation", p.t4["Total", key], _Est(sum(n.value for n in col)),
                          f"Table 5 {t} by family: " + _values(col)))
    for t in (*T.ERROR_TYPES, "correct"):
        i, r = p.t6[t, "item_f1"], p.t6[t, "row_f1"]
        out.append(_claim(f"table6.gap.{t}", f"{t}: Gap is Item-F1 minus Row-F1", "Table 6", "derivation",
                          p.t6[t, "gap"], i.est - r.est, f"Table 6 {t}: item_f1 {i.printed}, row_f1 {r.printed}"))
        total = p.t4["Total", t]
        out.append(_claim(f"table6.n.{t}", f"{t}: n equals Table 4's Total row", "Table 6", "equality",
                          p.t6[t, "n"], total.est, f"Table 4 Total {t}: {total.printed}"))
    return out


def _dataset_claims(p: _Paper) -> list[dict]:
    """Section 3.3 and Appendix K: counts, shares, pairing parity and feasibility."""
    out = []
    loc = "Section 3.3"
    total = p.stats["tasks", "benchmark"]
    fams = [(f, n) for (stat, f), n in p.stats.items()
            if stat == "tasks" and f not in ("benchmark", "constraint", "goal")]
    out.append(_claim("s3_3.family_total", "family task counts add up to the benchmark's tasks", loc, "derivation",
                      total, _Est(sum(n.value for _, n in fams)), "Section 3.3 family counts: " +
                      _values(n for _, n in fams)))
    out.append(_claim("s3_3.family_count", "the families listed are as many as the stated number of families", loc,
                      "derivation", p.stats["families", "benchmark"], _Est(Fraction(len(fams))),
                      "Section 3.3 families listed: " + ", ".join(f for f, _ in fams)))
    for f, n in fams:
        out.append(_claim(f"s3_3.share.{f}", f"{f}: share of tasks is its count over {total.printed}", loc,
                          "derivation", p.stats["share", f], _share(n, total),
                          f"Section 3.3: {n.printed} of {total.printed} tasks"))
    c, g = p.stats["tasks", "constraint"], p.stats["tasks", "goal"]
    out.append(_claim("s3_3.variant_total", "constraint-guided plus goal-oriented tasks make up the benchmark", loc,
                      "derivation", total, _Est(c.value + g.value), f"Section 3.3: {c.printed} + {g.printed}"))
    out.append(_claim("s3_3.variant_balance", "paired variants: as many goal-oriented as constraint-guided tasks",
                      loc, "equality", g, c.est, f"Section 3.3: constraint-guided {c.printed}"))
    k7 = p.stats["tasks_at_most_7_rows", "reference answers"]
    out.append(_claim("s3_3.share_at_most_7_rows", "share of tasks with at most 7 rows is their count over the "
                      "tasks", loc, "derivation", p.stats["share_at_most_7_rows", "reference answers"],
                      _share(k7, total), f"Section 3.3: {k7.printed} of {total.printed} tasks"))
    odd = sum(n.value % 2 for _, n in fams)
    out.append(_claim("s3_3.families_paired", "both variants of a problem share its website, so every family count "
                      "is even: families with an odd count", loc, "ordering", _exact(0), _Est(Fraction(odd)),
                      "Section 3.3 family counts: " + _values(n for _, n in fams)))
    mean = p.stats["mean_rows", "reference answers"]
    step = Fraction(2) / total.value  # the 100 references come in identical pairs: even total rows
    out.append(_claim("s3_3.mean_rows_paired", "both variants share one reference, so 100 x mean rows is an even "
                      "total: nearest attainable mean", loc, "bound", mean, _Est(round(mean.value / step) * step),
                      f"Section 3.3: mean {mean.printed} over {total.printed} tasks in pairs"))
    # Appendix K
    loc = "Appendix K, paragraph 1"
    bins = [(b, p.bins[b, "tasks"]) for b in T.BINS]
    n = {b: x.value for b, x in bins}
    out.append(_claim("appK.bins_total", "bin task counts add up to the benchmark's tasks", loc, "derivation", total,
                      _Est(sum(n.values())), "Appendix K bin counts: " + _values(x for _, x in bins)))
    for b, x in bins:
        out.append(_claim(f"appK.share.{b}", f"bin {b}: share of tasks is its count over {total.printed}", loc,
                          "derivation", p.bins[b, "share"], _share(x, total),
                          f"Appendix K: {x.printed} of {total.printed} tasks"))
    odd = sum(v % 2 for v in (*n.values(), k7.value))
    out.append(_claim("appK.bins_paired", "both variants share one reference, so bin counts and the count of tasks "
                      "with at most 7 rows are even: odd counts", loc, "ordering", _exact(0), _Est(Fraction(odd)),
                      "Appendix K bin counts " + _values(x for _, x in bins) + f"; at most 7 rows {k7.printed}"))
    lo7, hi7 = n["1-2"] + n["3-5"], n["1-2"] + n["3-5"] + n["6-10"]
    out.append(_claim("appK.at_most_7_rows_range", "tasks with at most 7 rows lie between those with at most 5 and "
                      "those with at most 10 rows", loc, "bound", k7, _Est(_clip(k7.value, lo7, hi7)),
                      f"Appendix K bins: at most 5 rows {lo7}, at most 10 rows {hi7}"))
    rmin, rmax = p.stats["min_rows", "reference answers"].value, p.stats["max_rows", "reference answers"].value
    ranges = {"1-2": (max(rmin, 1), Fraction(2)), "3-5": (Fraction(3), Fraction(5)),
              "6-10": (Fraction(6), Fraction(10)), "11+": (Fraction(11), rmax)}

    def kth(k: int) -> tuple[Fraction, Fraction]:
        seen = 0
        for b in T.BINS:
            seen += n[b]
            if seen >= k:
                return ranges[b]
        return ranges[T.BINS[-1]]

    half = int(total.value) // 2
    (a_lo, a_hi), (b_lo, b_hi) = kth(half), kth(half + 1)
    med = p.stats["median_rows", "reference answers"]
    lo, hi = (a_lo + b_lo) / 2, (a_hi + b_hi) / 2
    out.append(_claim("appK.median_rows_range", "the median lies in the range the bin counts allow", loc, "bound",
                      med, _Est(_clip(med.value, lo, hi)), f"Appendix K bins: tasks {half} and {half + 1} by rows "
                      f"fall in {a_lo}-{a_hi} and {b_lo}-{b_hi}, so the median is in [{lo}, {hi}]"))
    n67 = _clip(k7.value - lo7, _ZERO, n["6-10"])  # tasks with 6 or 7 rows
    segments = [(n["1-2"], *ranges["1-2"]), (n["3-5"], 3, 5), (n67, 6, 7), (n["6-10"] - n67, 8, 10)]
    if n["11+"] >= 1:  # one task has the maximum
        segments += [(Fraction(1), rmax, rmax), (n["11+"] - 1, 11, rmax)]
    lo = sum(c * a for c, a, _ in segments) / total.value
    hi = sum(c * b for c, _, b in segments) / total.value
    out.append(_claim("appK.mean_rows_range", "the mean lies in the range the bins, the extremes and the at-most-7 "
                      "count allow", loc, "bound", mean, _Est(_clip(mean.value, lo, hi)),
                      f"Appendix K bins with min {rmin}, max {rmax} rows and {k7.printed} tasks with at most 7 rows: "
                      f"mean in [{float(lo):g}, {float(hi):g}]"))
    for metric, text_id in (("item_f1", "f1.mean_item_f1"), ("row_f1", "f1.mean_row_f1")):
        known = [(b, p.bins[b, metric]) for b in T.BINS if (b, metric) in p.bins]
        gone = [b for b in T.BINS if (b, metric) not in p.bins]
        out.append(_weighted_bound(
            f"appK.{metric}_vs_overall", f"bin means weighted by task counts reproduce Finding 1's mean {_M[metric]} "
            "for some value in [0, 100] of the unpublished bins", loc, p.text_num(text_id),
            [(n[b] / total.value, x, f"{b} {x.printed}") for b, x in known], sum(n[b] for b in gone) / total.value,
            "Appendix K bins (" + ", ".join(gone) + " unpublished)"))
    fam_tasks = dict(fams)
    published = [(f, x) for f, x in p.fam.items()]
    out.append(_weighted_bound(
        "f3.family_item_f1_vs_overall", "family means weighted by family task counts reproduce Finding 1's mean "
        "Item-F1 for some value in [0, 100] of the unpublished families", "Section 4.2, Finding 3",
        p.text_num("f1.mean_item_f1"),
        [(fam_tasks[f].value / total.value, x, f"{f} {x.printed}") for f, x in published],
        sum(v.value for f, v in fam_tasks.items() if f not in p.fam) / total.value,
        "Finding 3 family means with Section 3.3 task counts (" +
        ", ".join(f for f in fam_tasks if f not in p.fam) + " unpublished)"))
    out.append(_claim("f3.family_order", "families are named from most to least accessible: pairs out of order",
                      "Section 4.2, Finding 3", "ordering", _exact(0),
                      _Est(Fraction(_inversions([x.value for _, x in published]))),
                      "Finding 3 in printed order: " + ", ".join(f"{f} {x.printed}" for f, x in published)))
    return out


def _weighted_bound(cid: str, claim: str, loc: str, published: _Num, parts: list, missing_weight: Fraction,
                    source: str) -> dict:
    """``published`` must equal sum(weight * mean) + missing_weight * m for some m in [0, 100]."""
    known = _Est(_ZERO)
    for weight, x, _ in parts:
        known = known + x.est.scale(weight)
    lo, hi = known.value, known.value + 100 * missing_weight
    implied = (published.value - known.value) / missing_weight if missing_weight else None
    note = "" if implied is None else f"; implied mean of the unpublished part {float(implied):.2f}"
    return _claim(cid, claim, loc, "bound", published, _Est(_clip(published.value, lo, hi), known.err),
                  f"{source}: " + ", ".join(text for _, _, text in parts) + note)


def _rank_claims(p: _Paper) -> list[dict]:
    """Ranks, dominant types and exceptions stated in words (Appendices E, H-J, figure captions)."""
    out = []

    def rank(cid, claim, loc, values: Mapping[str, Fraction], who: str, *, claimed=1, lowest=False, inputs=""):
        r = _rank(values[who], [v for k, v in values.items() if k != who], lowest=lowest)
        out.append(_claim(cid, claim, loc, "ordering", _exact(claimed), _Est(Fraction(r)), inputs))

    loc = 'Appendix E: "with GPT-5.5 leading on both Item-F1 and Row-F1"'
    for m in ("item_f1", "row_f1"):
        vals = {s: p.t3[s, m].value for s in p.t3_order}
        rank(f"appE.gpt_leads.{m}", f"GPT-5.5 ranks first by {_M[m]} among the 11 systems (rank)", loc, vals,
             "GPT-5.5", inputs=f"Table 3 {m}: " + _values(p.t3[s, m] for s in p.t3_order))
    below = [s for s in p.t3_order if p.t3[s, "item_f1"].value <= p.t3[s, "row_f1"].value]
    out.append(_claim("fig2.above_diagonal", "every system's Item-F1 exceeds its Row-F1: systems where it does not",
                      'Section 4.2, Figure 2 caption: "All points sit above the diagonal"', "ordering", _exact(0),
                      _Est(Fraction(len(below))), "Table 3 item_f1 and row_f1 of the 11 systems"
                      + (": " + ", ".join(below) if below else "")))
    loc = "Appendix H, Figure 4 caption"
    for lab, t in (("Seed-2.0", "scope_drift"), ("Gemini 3.1", "scope_drift"),
                   ("DS V4 Pro", "criterion_mismatch"), ("GLM-5.1", "criterion_mismatch")):
        vals = {e: p.t4[lab, e].value for e in T.ERROR_TYPES}
        rank(f"fig4.dominant.{lab}", f"{lab}: {t} is its most frequent error type (rank)", loc, vals, t,
             inputs=f"Table 4 {lab}: " + _values(p.t4[lab, e] for e in T.ERROR_TYPES))
    for lab, t, loc in (("Claude 4.7", "intent_rewriting", "Appendix H, Figure 4 caption"),
                        ("Kimi K2.5", "dependency_error", "Appendix H, paragraph 2")):
        vals = {x: p.t4[x, t].value / p.t4[x, "fail"].value for x in p.t4_labels}
        rank(f"appH.highest.{lab}", f"{lab} has the highest {t} share of failures among the eight models (rank)",
             loc, vals, lab, inputs=f"Table 4 {t} / Fail: " + ", ".join(
                 f"{x} {p.t4[x, t].printed}/{p.t4[x, 'fail'].printed}" for x in p.t4_labels))
    zero = [x for x in p.t4_labels if p.t4[x, "correct"].value == 0]
    out.append(_claim("appH.only_zero_correct", "Kimi K2.5 is the only model with zero correct trajectories: models "
                      "with Corr. 0", 'Appendix H, paragraph 2: "the only model with zero correct trajectories"',
                      "ordering", _exact(1), _Est(Fraction(len(zero))),
                      "Table 4 Corr.: " + ", ".join(f"{x} {p.t4[x, 'correct'].printed}" for x in p.t4_labels)))
    loc = "Appendix I, Figure 5 caption"
    for fam, t, claimed in (("scholarly archives", "scope_drift", 1), ("environmental monitoring", "scope_drift", 1),
                            ("regulatory resources", "criterion_mismatch", 1),
                            ("life-science resources", "criterion_mismatch", 1),
                            ("official statistics", "criterion_mismatch", 1),
                            ("official statistics", "final_answer", 2)):
        vals = {e: p.t5[fam, e].value for e in T.ERROR_TYPES}
        rank(f"fig5.rank.{fam}.{t}", f"{fam}: rank of {t} among its error types", loc, vals, t, claimed=claimed,
             inputs=f"Table 5 {fam}: " + _values(p.t5[fam, e] for e in T.ERROR_TYPES))
    item = {t: p.t6[t, "item_f1"].value for t in T.ERROR_TYPES}
    worst = max(_rank(item[t], [v for k, v in item.items() if k != t], lowest=True)
                for t in ("scope_drift", "intent_rewriting"))
    out.append(_claim("table6.upstream_lowest_item_f1", "scope drift and intent rewriting have the two lowest Item-F1 "
                      "of the six error types: the worse of their ranks from the bottom",
                      'Table 6 caption: "Upstream errors (scope drift, intent rewriting) produce lower Item-F1"',
                      "ordering", _exact(2), _Est(Fraction(worst)),
                      "Table 6 item_f1: " + _values(p.t6[t, "item_f1"] for t in T.ERROR_TYPES)))
    row = {t: p.t6[t, "row_f1"].value for t in T.ERROR_TYPES}
    rank("appJ.mismatch_lowest_row_f1", "criterion mismatch has the lowest Row-F1 of the six error types (rank from "
         "the bottom)", 'Appendix J: "the lowest Row-F1 among all error types (7.3%)"', row, "criterion_mismatch",
         lowest=True, inputs="Table 6 row_f1: " + _values(p.t6[t, "row_f1"] for t in T.ERROR_TYPES))
    gap = {t: p.t6[t, "gap"].value for t in T.ERROR_TYPES}
    rank("fig6.mismatch_widest_gap", "criterion mismatch has the widest Item-F1 vs Row-F1 gap (rank)",
         'Appendix J, Figure 6 caption: "Criterion mismatch shows the widest Item-F1 vs. Row-F1 gap"', gap,
         "criterion_mismatch", inputs="Table 6 gap: " + _values(p.t6[t, "gap"] for t in T.ERROR_TYPES))
    return out


# Text numbers that repeat or rank a published cell: key -> coordinates.
_T3_CELLS = {"google_item_f1": ("Google Search AI Mode", "item_f1"), "gemini_poa": ("Gemini 3.1 Pro", "poa"),
             "openai_dr_row_f1": ("OpenAI Deep Research", "row_f1"), "gemini_row_f1": ("Gemini 3.1 Pro", "row_f1"),
             "openai_dr_item_f1": ("OpenAI Deep Research", "item_f1")}
_T3_RANKS = {"openai_dr_row_f1_rank": ("OpenAI Deep Research", "row_f1"),
             "openai_dr_item_f1_rank": ("OpenAI Deep Research", "item_f1")}
_T6_CELLS = {"mismatch_item_f1": ("criterion_mismatch", "item_f1"), "mismatch_row_f1": ("criterion_mismatch", "row_f1"),
             "drift_item_f1": ("scope_drift", "item_f1"), "drift_row_f1": ("scope_drift", "row_f1"),
             "correct_item_f1": ("correct", "item_f1"), "correct_row_f1": ("correct", "row_f1")}
_MODEL_SHARES = {"seed_drift_share": ("Seed-2.0", "scope_drift"), "gemini_drift_share": ("Gemini 3.1", "scope_drift"),
                 "ds_mismatch_share": ("DS V4 Pro", "criterion_mismatch"),
                 "glm_mismatch_share": ("GLM-5.1", "criterion_mismatch"),
                 "claude_intent_share": ("Claude 4.7", "intent_rewriting"),
                 "kimi_dependency_share": ("Kimi K2.5", "dependency_error")}
_FAMILY_SHARES = {"scholarly_drift_share": ("scholarly archives", "scope_drift"),
                  "regulatory_mismatch_share": ("regulatory resources", "criterion_mismatch"),
                  "official_mismatch_share": ("official statistics", "criterion_mismatch"),
                  "official_final_share": ("official statistics", "final_answer"),
                  "environmental_drift_share": ("environmental monitoring", "scope_drift"),
                  "environmental_intent_share": ("environmental monitoring", "intent_rewriting")}
_AUDIT_SHARES = {"share_scope_drift": ("scope_drift",), "share_criterion_mismatch": ("criterion_mismatch",),
                 "share_scope_or_mismatch": ("scope_drift", "criterion_mismatch"),
                 "share_final_answer": ("final_answer",)}
# Appendix E's tiers: key -> (members, which member's Item-F1 bounds the tier, side of the bound).
_TIERS = {"top_tier_threshold": (("GPT-5.5", "GLM-5.1", "Claude Opus 4.7", "DeepSeek V4 Pro"), min, "above"),
          "middle_tier_low": (("Gemini 3.1 Pro", "OpenAI Deep Research"), min, "above"),
          "middle_tier_high": (("Gemini 3.1 Pro", "OpenAI Deep Research"), max, "below"),
          "bottom_tier_threshold": (("Kimi K2.5", "Qwen3.6-Plus", "Gemini Deep Research", "Seed-2.0 Pro",
                                     "Google Search AI Mode"), max, "below")}
_STATS = {"tasks": ("tasks", "benchmark"), "ordered_table_tasks": ("tasks", "benchmark"),
          "overall_tasks": ("tasks", "benchmark"), "families": ("families", "benchmark"),
          "ecosystems": ("ecosystems", "benchmark"),
          **{k: (k, "reference answers") for k in ("min_rows", "max_rows", "mean_rows", "median_rows",
                                                   "tasks_at_most_7_rows", "share_at_most_7_rows")}}

_Rule = tuple  # (estimate, inputs, side)


def _text_rules(p: _Paper) -> dict[str, _Rule]:
    """How each kind of text number is recomputed: key -> (estimate, inputs, side).

    The key of a text number is its id without the place prefix and any ``_<n>``
    suffix (``appC.cli_systems_2`` -> ``cli_systems``).
    """
    tot = lambda t: p.t4["Total", t]  # noqa: E731
    cli = [s for s in p.systems if p.groups[s] == "cli"]
    com = [s for s in p.systems if p.groups[s] == "commercial"]
    overall = p.t2_col("overall", "item_f1")
    rows = p.t2_col("constraint", "row_f1") + p.t2_col("goal", "row_f1")
    mean_c = {m: _mean(p.t2_col("constraint", m)) for m in _M}
    mean_g = {m: _mean(p.t2_col("goal", m)) for m in _M}
    best = max(p.systems, key=lambda s: p.t2[s, "overall", "item_f1"].value)
    worst = min(p.systems, key=lambda s: p.t2[s, "overall", "item_f1"].value)
    best_rows = [p.t2[best, "constraint", "row_f1"], p.t2[best, "goal", "row_f1"]]
    models = len(p.t4_labels)
    runs = tot("fail").value + tot("correct").value
    fam_totals = [p.t5[f, "total"] for f in p.t5_families]
    need = sum(math.ceil(n.value / models) for n in fam_totals)
    found, gold = p.text_num("appF.kimi_rows_found").value, p.text_num("appF.kimi_gold_rows").value
    fail = f"Table 4 Total Fail: {tot('fail').printed}"
    rules: dict[str, _Rule] = {
        "cli_systems": (_Est(Fraction(len(cli))), "Table 2 CLI-based systems: " + ", ".join(cli), "equal"),
        "commercial_systems": (_Est(Fraction(len(com))), "Table 2 commercial systems: " + ", ".join(com), "equal"),
        "best_item_f1": (p.t2[best, "overall", "item_f1"].est, f"Table 2 highest Overall: {best} "
                         + p.t2[best, "overall", "item_f1"].printed, "equal"),
        "item_f1_min": (p.t2[worst, "overall", "item_f1"].est, f"Table 2 lowest Overall: {worst} "
                        + p.t2[worst, "overall", "item_f1"].printed, "equal"),
        "audited_failures": (tot("fail").est, fail, "equal"),
        "failures": (tot("fail").est, fail, "equal"),
        "correct": (tot("correct").est, f"Table 4 Total Corr.: {tot('correct').printed}", "equal"),
        "trajectories": (_Est(runs), f"Table 4 Total: Fail {tot('fail').printed} + Corr. {tot('correct').printed}",
                         "equal"),
        "task_slots": (_Est(runs / models), f"Table 4: {runs} trajectories over {models} models", "equal"),
        "task_slots_bound": (_Est(Fraction(need)), f"Table 5 Totals {_values(fam_totals)} need at least {need} "
                             f"slots of {models} trajectories", "below"),
        "cli_agents": (_Est(Fraction(models)), f"Table 4: {models} model rows", "equal"),
        "error_types": (_Est(Fraction(len(T.ERROR_TYPES))), "Table 4: six error-type columns", "equal"),
        "family_groupings": (_Est(Fraction(len(p.t5_families))), "Table 5 rows: " + ", ".join(p.t5_families),
                             "equal"),
        "family_failures": (_Est(sum(n.value for n in fam_totals)), "Table 5 Total column: " + _values(fam_totals),
                            "equal"),
        "mean_item_f1": (_mean(overall), "Table 2 Overall of the 11 systems: " + _values(overall), "equal"),
        "mean_row_f1": (_mean(rows), "Table 2 row_f1, both variants of the 11 systems: " + _values(rows), "equal"),
        "gap": (_mean(overall) - _mean(rows), "mean Table 2 Overall minus mean Table 2 row_f1 (both variants, "
                "11 systems)", "equal"),
        "best_gap": (p.t2[best, "overall", "item_f1"].est - _mean(best_rows), f"Table 2 {best}: Overall "
                     f"{p.t2[best, 'overall', 'item_f1'].printed} minus the mean of row_f1 {_values(best_rows)}",
                     "equal"),
        "best_row_f1": (_mean(best_rows), f"Table 2 {best} row_f1: " + _values(best_rows), "equal"),
        "cli_mean_item_f1": (_mean(p.t2_col("overall", "item_f1", cli)), "Table 2 Overall of the CLI systems: "
                             + _values(p.t2_col("overall", "item_f1", cli)), "equal"),
        "commercial_mean_item_f1": (_mean(p.t2_col("overall", "item_f1", com)), "Table 2 Overall of the "
                                    "commercial systems: " + _values(p.t2_col("overall", "item_f1", com)), "equal"),
        "delta_item_f1": (mean_c["item_f1"] - mean_g["item_f1"], "mean Table 2 constraint item_f1 minus mean goal "
                          "item_f1 (11 systems)", "equal"),
        "delta_row_f1": (mean_g["row_f1"] - mean_c["row_f1"], "mean Table 2 goal row_f1 minus mean constraint "
                         "row_f1 (11 systems)", "equal"),
        "kimi_correct": (p.t4["Kimi K2.5", "correct"].est, "Table 4 Kimi K2.5 Corr.: "
                         + p.t4["Kimi K2.5", "correct"].printed, "equal"),
        "kimi_tasks": (_Est(p.t4["Kimi K2.5", "fail"].value + p.t4["Kimi K2.5", "correct"].value),
                       f"Table 4 Kimi K2.5: Fail {p.t4['Kimi K2.5', 'fail'].printed} + Corr. "
                       f"{p.t4['Kimi K2.5', 'correct'].printed}", "equal"),
        "mismatch_gap": (p.t6["criterion_mismatch", "item_f1"].est - p.t6["criterion_mismatch", "row_f1"].est,
                         "Table 6 criterion_mismatch: item_f1 minus row_f1", "equal"),
        # Appendix F case studies: F1 = 2 x correct / (gold + predicted), from the counts the text gives.
        "seed_item_f1": (_Est(Fraction(2 * 2, 8 * 4 + 1 * 4) * 100), "Appendix F: 8 reference rows x 4 fields "
                         "(original name, current name, type status, specimen number); 1 answer row with 2 of its "
                         "4 fields right (synonym and type-specimen fields wrong): 2 x 2 / (32 + 4)", "equal"),
        "seed_row_f1": (_Est(_ZERO), "Appendix F: the 1 answer row is not fully correct: 2 x 0 / (8 + 1)", "equal"),
        "cfpb_item_f1": (_Est(_ZERO), "Appendix F: all output slots wrong, so no correct field", "equal"),
        "cfpb_row_f1": (_Est(_ZERO), "Appendix F: all output slots wrong, so no correct row", "equal"),
        "kimi_row_f1": (_Est(Fraction(200) * found / (found + gold)), f"Appendix F: {found} correct answer rows "
                        f"against {gold} reference rows, no extra row assumed: 2 x {found} / ({found} + {gold})",
                        "equal"),
    }
    rules["item_f1_max"] = rules["best_item_f1"]
    rules["cli_models"] = rules["cli_agents"]
    rules["categories"] = rules["error_types"]
    for key, (stat, subject) in _STATS.items():
        n = p.stats[stat, subject]
        rules[key] = (n.est, f"Section 3.3 {stat}: {n.printed}", "equal")
    for v in ("constraint", "goal"):
        for m in ("item_f1", "row_f1"):
            col = p.t2_col(v, m)
            rules[f"{v}_{m}"] = (_mean(col), f"Table 2 {v} {m} of the 11 systems: " + _values(col), "equal")
    for key, types in _AUDIT_SHARES.items():
        part = _exact(sum(tot(t).value for t in types))
        rules[key] = (_share(part, tot("fail")), "Table 4 Total: " + " + ".join(f"{t} {tot(t).printed}" for t in types)
                      + f" of Fail {tot('fail').printed}", "equal")
    for key, (lab, t) in _MODEL_SHARES.items():
        a, b = p.t4[lab, t], p.t4[lab, "fail"]
        rules[key] = (_share(a, b), f"Table 4 {lab}: {t} {a.printed} of Fail {b.printed}", "equal")
    for key, (fam, t) in _FAMILY_SHARES.items():
        a, b = p.t5[fam, t], p.t5[fam, "total"]
        rules[key] = (_share(a, b), f"Table 5 {fam}: {t} {a.printed} of Total {b.printed}", "equal")
    for key, (s, m) in _T3_CELLS.items():
        rules[key] = (p.t3[s, m].est, f"Table 3 {s} {m}: {p.t3[s, m].printed}", "equal")
    for key, (s, m) in _T3_RANKS.items():
        r = _rank(p.t3[s, m].value, [p.t3[x, m].value for x in p.t3_order if x != s])
        rules[key] = (_Est(Fraction(r)), f"Table 3 {m}: " + _values(p.t3[x, m] for x in p.t3_order), "equal")
    for key, (t, m) in _T6_CELLS.items():
        rules[key] = (p.t6[t, m].est, f"Table 6 {t} {m}: {p.t6[t, m].printed}", "equal")
    for key, (names, pick, side) in _TIERS.items():
        x = pick((p.t3[s, "item_f1"] for s in names), key=lambda n: n.value)
        rules[key] = (x.est, "Table 3 item_f1: " + ", ".join(f"{s} {p.t3[s, 'item_f1'].printed}" for s in names), side)
    return rules


def _text_claims(p: _Paper) -> list[dict]:
    """Every ``repeat`` and ``derived`` number of ``text_numbers.csv``, plus the variant-cell recomputations."""
    rules = _text_rules(p)
    out: list[dict] = []
    meaning: dict[str, str] = {}
    for r in p.text.values():
        if r.kind == "standalone":
            continue
        key = re.sub(r"_\d+$", "", r.id.split(".", 1)[1])
        if key not in rules:
            raise SgrKitError(f"text_numbers.csv, id {r.id!r}: marked {r.kind!r} but the audit has no rule for "
                              f"{key!r}; mark it 'standalone' or add a rule")
        if meaning.setdefault(key, r.claim) != r.claim:
            raise SgrKitError(f"text_numbers.csv, id {r.id!r}: ids ending in {key!r} share one rule, so they must "
                              f"make one claim; expected {meaning[key]!r}, found {r.claim!r}")
        est, inputs, side = rules[key]
        kind = ("ordering" if r.unit == "rank" else "bound" if side != "equal"
                else "equality" if r.kind == "repeat" else "derivation")
        out.append(_claim(r.id, r.claim, f'{r.source}: "{r.quote}"', kind, p.text_num(r.id), est, inputs, side))
        if r.id in ("f1.mean_item_f1", "s4_2.cli_mean_item_f1"):
            names = p.systems if r.id.startswith("f1") else [s for s in p.systems if p.groups[s] == "cli"]
            cells = p.t2_col("constraint", "item_f1", names) + p.t2_col("goal", "item_f1", names)
            out.append(_claim(
                r.id + ".from_variants", r.claim + ", recomputed from Table 2's variant cells (Overall is the "
                "average over all 100 tasks, i.e. the mean of the two 50-task means)", f'{r.source}: "{r.quote}"',
                "derivation", p.text_num(r.id), _mean(cells),
                f"Table 2 constraint and goal item_f1 of {len(names)} systems: " + _values(cells)))
    return out


def audit(tables: Mapping[str, pd.DataFrame] | None = None) -> pd.DataFrame:
    """Recompute every published number that follows from other published numbers.

    Parameters
    ----------
    tables : mapping of str to DataFrame, optional
        Reference tables by :data:`sgr_kit.reference.NAMES` name, as returned by
        :func:`sgr_kit.reference.load`; names left out are loaded from
        ``data/reference``. Pass edited copies to audit a variant of the numbers.

    Returns
    -------
    DataFrame
        One row per claim with columns :data:`COLUMNS`: ``id``, ``claim`` (what
        is asserted), ``location`` (where it is printed, with the sentence for
        text numbers), ``published``, ``recomputed``, ``difference``,
        ``tolerance`` (all in the published unit), ``verdict`` (``consistent`` when
        ``|difference| <= tolerance``, else ``inconsistent``), ``kind`` and
        ``inputs`` (the printed numbers combined). See the module docstring for
        the tolerance rule.

    References
    ----------
    Tables 2-6, sections 3.3 and 4.2, appendices E-K of the paper.

    Examples
    --------
    >>> a = audit().set_index("id")
    >>> gpt = a.loc["table2.overall.GPT-5.5"]
    >>> float(gpt["published"]), float(gpt["recomputed"]), float(gpt["tolerance"]), gpt["verdict"]
    (66.18, 66.185, 0.01, 'consistent')
    >>> kimi = a.loc["table2.overall.Kimi K2.5"]
    >>> float(kimi["published"]), float(kimi["recomputed"]), kimi["verdict"]
    (47.39, 46.355, 'inconsistent')
    """
    frames = {name: (tables[name] if tables is not None and name in tables else T.load(name)) for name in T.NAMES}
    try:
        p = _Paper(frames)
        rows = _table_claims(p) + _dataset_claims(p) + _text_claims(p) + _rank_claims(p)
    except KeyError as err:
        raise SgrKitError(f"audit: the reference tables lack the published number {err.args[0]!r}; expected "
                          "tables with the rows of data/reference") from None
    out = pd.DataFrame(rows, columns=list(COLUMNS))
    for column in ("published", "recomputed", "difference", "tolerance"):
        out[column] = out[column].map(float)
    return out


def audit_summary(frame: pd.DataFrame | None = None) -> pd.DataFrame:
    """Claims and verdicts counted by where they are printed (section, appendix or table), plus ``all``.

    Parameters
    ----------
    frame : DataFrame, optional
        Output of :func:`audit` (computed when omitted).

    Returns
    -------
    DataFrame
        Columns ``location, claims, consistent, inconsistent``; the last row is ``all``.

    Examples
    --------
    >>> s = audit_summary()
    >>> s.iloc[-1]["location"], int(s.iloc[-1]["inconsistent"]) > 0
    ('all', True)
    """
    frame = audit() if frame is None else frame
    place = frame["location"].str.split(r"[,:]", n=1, regex=True).str[0].str.strip()

    def counts(location: str, part: pd.DataFrame) -> dict:
        return {"location": location, "claims": len(part), **{v: int((part["verdict"] == v).sum()) for v in VERDICTS}}

    rows = [counts(location, part) for location, part in frame.groupby(place, sort=False)]
    return pd.DataFrame(rows + [counts("all", frame)], columns=["location", "claims", *VERDICTS])
