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
``consistent`` when ``|difference| <= tolerance``, where::

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
from fractions import Fraction
from typing import Mapping

import pandas as pd

from ..errors import SgrKitError
from ..schema import AUDIT_COLUMNS, AUDIT_VERDICTS, METRIC_LABELS
from . import tables as T
from .numbers import (
    ZERO,
    Estimate,
    Printed,
    PublishedNumbers,
    claim_row,
    clip,
    exact,
    half_unit,
    inversions,
    listing,
    mean,
    rank_of,
    rounding_tolerance,
    share,
)

__all__ = ["half_unit", "rounding_tolerance", "audit", "audit_summary"]

_M = METRIC_LABELS


def _table_claims(p: PublishedNumbers) -> list[dict]:
    """Tables 2-6: Overall cells, Table 3 from Table 2, totals, gaps and n."""
    out = []
    for s in p.systems:
        c, g = p.t2[s, "constraint", "item_f1"], p.t2[s, "goal", "item_f1"]
        out.append(claim_row(
            f"table2.overall.{s}", f"{s}: Overall Item-F1 is the mean of its constraint-guided and goal-oriented "
            "Item-F1 (50 tasks each)", "Table 2", "derivation", p.t2[s, "overall", "item_f1"], mean([c, g]),
            f"Table 2 {s}: constraint item_f1 {c.printed}, goal item_f1 {g.printed}"))
    for s in p.t3_order:
        o = p.t2[s, "overall", "item_f1"]
        out.append(claim_row(f"table3.item_f1.{s}", f"{s}: Item-F1 equals Table 2's Overall", "Table 3", "equality",
                          p.t3[s, "item_f1"], o.est, f"Table 2 {s}: overall item_f1 {o.printed}"))
        for m in ("row_f1", "poa"):
            c, g = p.t2[s, "constraint", m], p.t2[s, "goal", m]
            out.append(claim_row(f"table3.{m}.{s}", f"{s}: {_M[m]} is the mean of Table 2's two variant {_M[m]}",
                              "Table 3", "derivation", p.t3[s, m], mean([c, g]),
                              f"Table 2 {s}: constraint {m} {c.printed}, goal {m} {g.printed}"))
    items = [p.t3[s, "item_f1"] for s in p.t3_order]
    out.append(claim_row("table3.order", "rows are sorted by overall Item-F1, highest first: pairs out of order",
                      'Table 3 caption: "sorted by overall Item-F1"', "ordering", exact(0),
                      Estimate(Fraction(inversions([n.value for n in items]))),
                      "Table 3 item_f1 in printed order: " + listing(items)))
    slots = p.text_num("t4cap.task_slots")
    for lab in p.t4_labels:
        parts = [p.t4[lab, t] for t in T.ERROR_TYPES]
        fail, corr = p.t4[lab, "fail"], p.t4[lab, "correct"]
        out.append(claim_row(f"table4.fail.{lab}", f"{lab}: Fail is the sum of its six error-type counts", "Table 4",
                          "derivation", fail, Estimate(sum(n.value for n in parts)), f"Table 4 {lab}: " + listing(parts)))
        out.append(claim_row(f"table4.slots.{lab}", f"{lab}: Fail + Corr. equals the caption's 22 task slots per model",
                          "Table 4", "derivation", slots, Estimate(fail.value + corr.value),
                          f"Table 4 {lab}: Fail {fail.printed}, Corr. {corr.printed}"))
    for t in (*T.ERROR_TYPES, "fail", "correct"):
        col = [p.t4[lab, t] for lab in p.t4_labels]
        out.append(claim_row(f"table4.total.{t}", f"Total row, {t}: the sum over the eight models", "Table 4",
                          "derivation", p.t4["Total", t], Estimate(sum(n.value for n in col)),
                          f"Table 4 {t} by model: " + listing(col)))
    for fam in p.t5_families:
        parts = [p.t5[fam, t] for t in T.ERROR_TYPES]
        out.append(claim_row(f"table5.total.{fam}", f"{fam}: Total is the sum of its six error-type counts", "Table 5",
                          "derivation", p.t5[fam, "total"], Estimate(sum(n.value for n in parts)),
                          f"Table 5 {fam}: " + listing(parts)))
    for t in (*T.ERROR_TYPES, "total"):
        col = [p.t5[fam, t] for fam in p.t5_families]
        key = "fail" if t == "total" else t
        out.append(claim_row(f"table5.column.{t}", f"{t} summed over the five families equals Table 4's Total row",
                          "Table 5", "derivation", p.t4["Total", key], Estimate(sum(n.value for n in col)),
                          f"Table 5 {t} by family: " + listing(col)))
    for t in (*T.ERROR_TYPES, "correct"):
        i, r = p.t6[t, "item_f1"], p.t6[t, "row_f1"]
        out.append(claim_row(f"table6.gap.{t}", f"{t}: Gap is Item-F1 minus Row-F1", "Table 6", "derivation",
                          p.t6[t, "gap"], i.est - r.est, f"Table 6 {t}: item_f1 {i.printed}, row_f1 {r.printed}"))
        total = p.t4["Total", t]
        out.append(claim_row(f"table6.n.{t}", f"{t}: n equals Table 4's Total row", "Table 6", "equality",
                          p.t6[t, "n"], total.est, f"Table 4 Total {t}: {total.printed}"))
    return out


def _dataset_claims(p: PublishedNumbers) -> list[dict]:
    """Section 3.3 and Appendix K: counts, shares, pairing parity and feasibility."""
    out = []
    loc = "Section 3.3"
    total = p.stats["tasks", "benchmark"]
    fams = [(f, n) for (stat, f), n in p.stats.items()
            if stat == "tasks" and f not in ("benchmark", "constraint", "goal")]
    out.append(claim_row("s3_3.family_total", "family task counts add up to the benchmark's tasks", loc, "derivation",
                      total, Estimate(sum(n.value for _, n in fams)), "Section 3.3 family counts: " +
                      listing(n for _, n in fams)))
    out.append(claim_row("s3_3.family_count", "the families listed are as many as the stated number of families", loc,
                      "derivation", p.stats["families", "benchmark"], Estimate(Fraction(len(fams))),
                      "Section 3.3 families listed: " + ", ".join(f for f, _ in fams)))
    for f, n in fams:
        out.append(claim_row(f"s3_3.share.{f}", f"{f}: share of tasks is its count over {total.printed}", loc,
                          "derivation", p.stats["share", f], share(n, total),
                          f"Section 3.3: {n.printed} of {total.printed} tasks"))
    c, g = p.stats["tasks", "constraint"], p.stats["tasks", "goal"]
    out.append(claim_row("s3_3.variant_total", "constraint-guided plus goal-oriented tasks make up the benchmark", loc,
                      "derivation", total, Estimate(c.value + g.value), f"Section 3.3: {c.printed} + {g.printed}"))
    out.append(claim_row("s3_3.variant_balance", "paired variants: as many goal-oriented as constraint-guided tasks",
                      loc, "equality", g, c.est, f"Section 3.3: constraint-guided {c.printed}"))
    k7 = p.stats["tasks_at_most_7_rows", "reference answers"]
    out.append(claim_row("s3_3.share_at_most_7_rows", "share of tasks with at most 7 rows is their count over the "
                      "tasks", loc, "derivation", p.stats["share_at_most_7_rows", "reference answers"],
                      share(k7, total), f"Section 3.3: {k7.printed} of {total.printed} tasks"))
    odd = sum(n.value % 2 for _, n in fams)
    out.append(claim_row("s3_3.families_paired", "both variants of a problem share its website, so every family count "
                      "is even: families with an odd count", loc, "ordering", exact(0), Estimate(Fraction(odd)),
                      "Section 3.3 family counts: " + listing(n for _, n in fams)))
    mean = p.stats["mean_rows", "reference answers"]
    step = Fraction(2) / total.value  # the 100 references come in identical pairs: even total rows
    out.append(claim_row("s3_3.mean_rows_paired", "both variants share one reference, so 100 x mean rows is an even "
                      "total: nearest attainable mean", loc, "bound", mean, Estimate(round(mean.value / step) * step),
                      f"Section 3.3: mean {mean.printed} over {total.printed} tasks in pairs"))
    # Appendix K
    loc = "Appendix K, paragraph 1"
    bins = [(b, p.bins[b, "tasks"]) for b in T.BINS]
    n = {b: x.value for b, x in bins}
    out.append(claim_row("appK.bins_total", "bin task counts add up to the benchmark's tasks", loc, "derivation", total,
                      Estimate(sum(n.values())), "Appendix K bin counts: " + listing(x for _, x in bins)))
    for b, x in bins:
        out.append(claim_row(f"appK.share.{b}", f"bin {b}: share of tasks is its count over {total.printed}", loc,
                          "derivation", p.bins[b, "share"], share(x, total),
                          f"Appendix K: {x.printed} of {total.printed} tasks"))
    odd = sum(v % 2 for v in (*n.values(), k7.value))
    out.append(claim_row("appK.bins_paired", "both variants share one reference, so bin counts and the count of tasks "
                      "with at most 7 rows are even: odd counts", loc, "ordering", exact(0), Estimate(Fraction(odd)),
                      "Appendix K bin counts " + listing(x for _, x in bins) + f"; at most 7 rows {k7.printed}"))
    lo7, hi7 = n["1-2"] + n["3-5"], n["1-2"] + n["3-5"] + n["6-10"]
    out.append(claim_row("appK.at_most_7_rows_range", "tasks with at most 7 rows lie between those with at most 5 and "
                      "those with at most 10 rows", loc, "bound", k7, Estimate(clip(k7.value, lo7, hi7)),
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
    out.append(claim_row("appK.median_rows_range", "the median lies in the range the bin counts allow", loc, "bound",
                      med, Estimate(clip(med.value, lo, hi)), f"Appendix K bins: tasks {half} and {half + 1} by rows "
                      f"fall in {a_lo}-{a_hi} and {b_lo}-{b_hi}, so the median is in [{lo}, {hi}]"))
    n67 = clip(k7.value - lo7, ZERO, n["6-10"])  # tasks with 6 or 7 rows
    segments = [(n["1-2"], *ranges["1-2"]), (n["3-5"], 3, 5), (n67, 6, 7), (n["6-10"] - n67, 8, 10)]
    if n["11+"] >= 1:  # one task has the maximum
        segments += [(Fraction(1), rmax, rmax), (n["11+"] - 1, 11, rmax)]
    lo = sum(c * a for c, a, _ in segments) / total.value
    hi = sum(c * b for c, _, b in segments) / total.value
    out.append(claim_row("appK.mean_rows_range", "the mean lies in the range the bins, the extremes and the at-most-7 "
                      "count allow", loc, "bound", mean, Estimate(clip(mean.value, lo, hi)),
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
    out.append(claim_row("f3.family_order", "families are named from most to least accessible: pairs out of order",
                      "Section 4.2, Finding 3", "ordering", exact(0),
                      Estimate(Fraction(inversions([x.value for _, x in published]))),
                      "Finding 3 in printed order: " + ", ".join(f"{f} {x.printed}" for f, x in published)))
    return out


def _weighted_bound(cid: str, claim: str, loc: str, published: Printed, parts: list, missing_weight: Fraction,
                    source: str) -> dict:
    """``published`` must equal sum(weight * mean) + missing_weight * m for some m in [0, 100]."""
    known = Estimate(ZERO)
    for weight, x, _ in parts:
        known = known + x.est.scale(weight)
    lo, hi = known.value, known.value + 100 * missing_weight
    implied = (published.value - known.value) / missing_weight if missing_weight else None
    note = "" if implied is None else f"; implied mean of the unpublished part {float(implied):.2f}"
    return claim_row(cid, claim, loc, "bound", published, Estimate(clip(published.value, lo, hi), known.err),
                  f"{source}: " + ", ".join(text for _, _, text in parts) + note)


def _rank_claims(p: PublishedNumbers) -> list[dict]:
    """Ranks, dominant types and exceptions stated in words (Appendices E, H-J, figure captions)."""
    out = []

    def rank(cid, claim, loc, values: Mapping[str, Fraction], who: str, *, claimed=1, lowest=False, inputs=""):
        r = rank_of(values[who], [v for k, v in values.items() if k != who], lowest=lowest)
        out.append(claim_row(cid, claim, loc, "ordering", exact(claimed), Estimate(Fraction(r)), inputs))

    loc = 'Appendix E: "with GPT-5.5 leading on both Item-F1 and Row-F1"'
    for m in ("item_f1", "row_f1"):
        vals = {s: p.t3[s, m].value for s in p.t3_order}
        rank(f"appE.gpt_leads.{m}", f"GPT-5.5 ranks first by {_M[m]} among the 11 systems (rank)", loc, vals,
             "GPT-5.5", inputs=f"Table 3 {m}: " + listing(p.t3[s, m] for s in p.t3_order))
    below = [s for s in p.t3_order if p.t3[s, "item_f1"].value <= p.t3[s, "row_f1"].value]
    out.append(claim_row("fig2.above_diagonal", "every system's Item-F1 exceeds its Row-F1: systems where it does not",
                      'Section 4.2, Figure 2 caption: "All points sit above the diagonal"', "ordering", exact(0),
                      Estimate(Fraction(len(below))), "Table 3 item_f1 and row_f1 of the 11 systems"
                      + (": " + ", ".join(below) if below else "")))
    loc = "Appendix H, Figure 4 caption"
    for lab, t in (("Seed-2.0", "scope_drift"), ("Gemini 3.1", "scope_drift"),
                   ("DS V4 Pro", "criterion_mismatch"), ("GLM-5.1", "criterion_mismatch")):
        vals = {e: p.t4[lab, e].value for e in T.ERROR_TYPES}
        rank(f"fig4.dominant.{lab}", f"{lab}: {t} is its most frequent error type (rank)", loc, vals, t,
             inputs=f"Table 4 {lab}: " + listing(p.t4[lab, e] for e in T.ERROR_TYPES))
    for lab, t, loc in (("Claude 4.7", "intent_rewriting", "Appendix H, Figure 4 caption"),
                        ("Kimi K2.5", "dependency_error", "Appendix H, paragraph 2")):
        vals = {x: p.t4[x, t].value / p.t4[x, "fail"].value for x in p.t4_labels}
        rank(f"appH.highest.{lab}", f"{lab} has the highest {t} share of failures among the eight models (rank)",
             loc, vals, lab, inputs=f"Table 4 {t} / Fail: " + ", ".join(
                 f"{x} {p.t4[x, t].printed}/{p.t4[x, 'fail'].printed}" for x in p.t4_labels))
    zero = [x for x in p.t4_labels if p.t4[x, "correct"].value == 0]
    out.append(claim_row("appH.only_zero_correct", "Kimi K2.5 is the only model with zero correct trajectories: models "
                      "with Corr. 0", 'Appendix H, paragraph 2: "the only model with zero correct trajectories"',
                      "ordering", exact(1), Estimate(Fraction(len(zero))),
                      "Table 4 Corr.: " + ", ".join(f"{x} {p.t4[x, 'correct'].printed}" for x in p.t4_labels)))
    loc = "Appendix I, Figure 5 caption"
    for fam, t, claimed in (("scholarly archives", "scope_drift", 1), ("environmental monitoring", "scope_drift", 1),
                            ("regulatory resources", "criterion_mismatch", 1),
                            ("life-science resources", "criterion_mismatch", 1),
                            ("official statistics", "criterion_mismatch", 1),
                            ("official statistics", "final_answer", 2)):
        vals = {e: p.t5[fam, e].value for e in T.ERROR_TYPES}
        rank(f"fig5.rank.{fam}.{t}", f"{fam}: rank of {t} among its error types", loc, vals, t, claimed=claimed,
             inputs=f"Table 5 {fam}: " + listing(p.t5[fam, e] for e in T.ERROR_TYPES))
    item = {t: p.t6[t, "item_f1"].value for t in T.ERROR_TYPES}
    worst = max(rank_of(item[t], [v for k, v in item.items() if k != t], lowest=True)
                for t in ("scope_drift", "intent_rewriting"))
    out.append(claim_row("table6.upstream_lowest_item_f1", "scope drift and intent rewriting have the two lowest Item-F1 "
                      "of the six error types: the worse of their ranks from the bottom",
                      'Table 6 caption: "Upstream errors (scope drift, intent rewriting) produce lower Item-F1"',
                      "ordering", exact(2), Estimate(Fraction(worst)),
                      "Table 6 item_f1: " + listing(p.t6[t, "item_f1"] for t in T.ERROR_TYPES)))
    row = {t: p.t6[t, "row_f1"].value for t in T.ERROR_TYPES}
    rank("appJ.mismatch_lowest_row_f1", "criterion mismatch has the lowest Row-F1 of the six error types (rank from "
         "the bottom)", 'Appendix J: "the lowest Row-F1 among all error types (7.3%)"', row, "criterion_mismatch",
         lowest=True, inputs="Table 6 row_f1: " + listing(p.t6[t, "row_f1"] for t in T.ERROR_TYPES))
    gap = {t: p.t6[t, "gap"].value for t in T.ERROR_TYPES}
    rank("fig6.mismatch_widest_gap", "criterion mismatch has the widest Item-F1 vs Row-F1 gap (rank)",
         'Appendix J, Figure 6 caption: "Criterion mismatch shows the widest Item-F1 vs. Row-F1 gap"', gap,
         "criterion_mismatch", inputs="Table 6 gap: " + listing(p.t6[t, "gap"] for t in T.ERROR_TYPES))
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


def _text_rules(p: PublishedNumbers) -> dict[str, _Rule]:
    """How each kind of text number is recomputed: key -> (estimate, inputs, side).

    The key of a text number is its id without the place prefix and any ``_<n>``
    suffix (``appC.cli_systems_2`` -> ``cli_systems``).
    """
    tot = lambda t: p.t4["Total", t]  # noqa: E731
    cli = [s for s in p.systems if p.groups[s] == "cli"]
    com = [s for s in p.systems if p.groups[s] == "commercial"]
    overall = p.t2_col("overall", "item_f1")
    rows = p.t2_col("constraint", "row_f1") + p.t2_col("goal", "row_f1")
    mean_c = {m: mean(p.t2_col("constraint", m)) for m in _M}
    mean_g = {m: mean(p.t2_col("goal", m)) for m in _M}
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
        "cli_systems": (Estimate(Fraction(len(cli))), "Table 2 CLI-based systems: " + ", ".join(cli), "equal"),
        "commercial_systems": (Estimate(Fraction(len(com))), "Table 2 commercial systems: " + ", ".join(com), "equal"),
        "best_item_f1": (p.t2[best, "overall", "item_f1"].est, f"Table 2 highest Overall: {best} "
                         + p.t2[best, "overall", "item_f1"].printed, "equal"),
        "item_f1_min": (p.t2[worst, "overall", "item_f1"].est, f"Table 2 lowest Overall: {worst} "
                        + p.t2[worst, "overall", "item_f1"].printed, "equal"),
        "audited_failures": (tot("fail").est, fail, "equal"),
        "failures": (tot("fail").est, fail, "equal"),
        "correct": (tot("correct").est, f"Table 4 Total Corr.: {tot('correct').printed}", "equal"),
        "trajectories": (Estimate(runs), f"Table 4 Total: Fail {tot('fail').printed} + Corr. {tot('correct').printed}",
                         "equal"),
        "task_slots": (Estimate(runs / models), f"Table 4: {runs} trajectories over {models} models", "equal"),
        "task_slots_bound": (Estimate(Fraction(need)), f"Table 5 Totals {listing(fam_totals)} need at least {need} "
                             f"slots of {models} trajectories", "below"),
        "cli_agents": (Estimate(Fraction(models)), f"Table 4: {models} model rows", "equal"),
        "error_types": (Estimate(Fraction(len(T.ERROR_TYPES))), "Table 4: six error-type columns", "equal"),
        "family_groupings": (Estimate(Fraction(len(p.t5_families))), "Table 5 rows: " + ", ".join(p.t5_families),
                             "equal"),
        "family_failures": (Estimate(sum(n.value for n in fam_totals)), "Table 5 Total column: " + listing(fam_totals),
                            "equal"),
        "mean_item_f1": (mean(overall), "Table 2 Overall of the 11 systems: " + listing(overall), "equal"),
        "mean_row_f1": (mean(rows), "Table 2 row_f1, both variants of the 11 systems: " + listing(rows), "equal"),
        "gap": (mean(overall) - mean(rows), "mean Table 2 Overall minus mean Table 2 row_f1 (both variants, "
                "11 systems)", "equal"),
        "best_gap": (p.t2[best, "overall", "item_f1"].est - mean(best_rows), f"Table 2 {best}: Overall "
                     f"{p.t2[best, 'overall', 'item_f1'].printed} minus the mean of row_f1 {listing(best_rows)}",
                     "equal"),
        "best_row_f1": (mean(best_rows), f"Table 2 {best} row_f1: " + listing(best_rows), "equal"),
        "cli_mean_item_f1": (mean(p.t2_col("overall", "item_f1", cli)), "Table 2 Overall of the CLI systems: "
                             + listing(p.t2_col("overall", "item_f1", cli)), "equal"),
        "commercial_mean_item_f1": (mean(p.t2_col("overall", "item_f1", com)), "Table 2 Overall of the "
                                    "commercial systems: " + listing(p.t2_col("overall", "item_f1", com)), "equal"),
        "delta_item_f1": (mean_c["item_f1"] - mean_g["item_f1"], "mean Table 2 constraint item_f1 minus mean goal "
                          "item_f1 (11 systems)", "equal"),
        "delta_row_f1": (mean_g["row_f1"] - mean_c["row_f1"], "mean Table 2 goal row_f1 minus mean constraint "
                         "row_f1 (11 systems)", "equal"),
        "kimi_correct": (p.t4["Kimi K2.5", "correct"].est, "Table 4 Kimi K2.5 Corr.: "
                         + p.t4["Kimi K2.5", "correct"].printed, "equal"),
        "kimi_tasks": (Estimate(p.t4["Kimi K2.5", "fail"].value + p.t4["Kimi K2.5", "correct"].value),
                       f"Table 4 Kimi K2.5: Fail {p.t4['Kimi K2.5', 'fail'].printed} + Corr. "
                       f"{p.t4['Kimi K2.5', 'correct'].printed}", "equal"),
        "mismatch_gap": (p.t6["criterion_mismatch", "item_f1"].est - p.t6["criterion_mismatch", "row_f1"].est,
                         "Table 6 criterion_mismatch: item_f1 minus row_f1", "equal"),
        # Appendix F case studies: F1 = 2 x correct / (gold + predicted), from the counts the text gives.
        "seed_item_f1": (Estimate(Fraction(2 * 2, 8 * 4 + 1 * 4) * 100), "Appendix F: 8 reference rows x 4 fields "
                         "(original name, current name, type status, specimen number); 1 answer row with 2 of its "
                         "4 fields right (synonym and type-specimen fields wrong): 2 x 2 / (32 + 4)", "equal"),
        "seed_row_f1": (Estimate(ZERO), "Appendix F: the 1 answer row is not fully correct: 2 x 0 / (8 + 1)", "equal"),
        "cfpb_item_f1": (Estimate(ZERO), "Appendix F: all output slots wrong, so no correct field", "equal"),
        "cfpb_row_f1": (Estimate(ZERO), "Appendix F: all output slots wrong, so no correct row", "equal"),
        "kimi_row_f1": (Estimate(Fraction(200) * found / (found + gold)), f"Appendix F: {found} correct answer rows "
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
            rules[f"{v}_{m}"] = (mean(col), f"Table 2 {v} {m} of the 11 systems: " + listing(col), "equal")
    for key, types in _AUDIT_SHARES.items():
        part = exact(sum(tot(t).value for t in types))
        rules[key] = (share(part, tot("fail")), "Table 4 Total: " + " + ".join(f"{t} {tot(t).printed}" for t in types)
                      + f" of Fail {tot('fail').printed}", "equal")
    for key, (lab, t) in _MODEL_SHARES.items():
        a, b = p.t4[lab, t], p.t4[lab, "fail"]
        rules[key] = (share(a, b), f"Table 4 {lab}: {t} {a.printed} of Fail {b.printed}", "equal")
    for key, (fam, t) in _FAMILY_SHARES.items():
        a, b = p.t5[fam, t], p.t5[fam, "total"]
        rules[key] = (share(a, b), f"Table 5 {fam}: {t} {a.printed} of Total {b.printed}", "equal")
    for key, (s, m) in _T3_CELLS.items():
        rules[key] = (p.t3[s, m].est, f"Table 3 {s} {m}: {p.t3[s, m].printed}", "equal")
    for key, (s, m) in _T3_RANKS.items():
        r = rank_of(p.t3[s, m].value, [p.t3[x, m].value for x in p.t3_order if x != s])
        rules[key] = (Estimate(Fraction(r)), f"Table 3 {m}: " + listing(p.t3[x, m] for x in p.t3_order), "equal")
    for key, (t, m) in _T6_CELLS.items():
        rules[key] = (p.t6[t, m].est, f"Table 6 {t} {m}: {p.t6[t, m].printed}", "equal")
    for key, (names, pick, side) in _TIERS.items():
        x = pick((p.t3[s, "item_f1"] for s in names), key=lambda n: n.value)
        rules[key] = (x.est, "Table 3 item_f1: " + ", ".join(f"{s} {p.t3[s, 'item_f1'].printed}" for s in names), side)
    return rules


def _text_claims(p: PublishedNumbers) -> list[dict]:
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
        out.append(claim_row(r.id, r.claim, f'{r.source}: "{r.quote}"', kind, p.text_num(r.id), est, inputs, side))
        if r.id in ("f1.mean_item_f1", "s4_2.cli_mean_item_f1"):
            names = p.systems if r.id.startswith("f1") else [s for s in p.systems if p.groups[s] == "cli"]
            cells = p.t2_col("constraint", "item_f1", names) + p.t2_col("goal", "item_f1", names)
            out.append(claim_row(
                r.id + ".from_variants", r.claim + ", recomputed from Table 2's variant cells (Overall is the "
                "average over all 100 tasks, i.e. the mean of the two 50-task means)", f'{r.source}: "{r.quote}"',
                "derivation", p.text_num(r.id), mean(cells),
                f"Table 2 constraint and goal item_f1 of {len(names)} systems: " + listing(cells)))
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
        One row per claim with columns :data:`sgr_kit.schema.AUDIT_COLUMNS`: ``id``, ``claim`` (what
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
        p = PublishedNumbers(frames)
        rows = _table_claims(p) + _dataset_claims(p) + _text_claims(p) + _rank_claims(p)
    except KeyError as err:
        raise SgrKitError(f"audit: the reference tables lack the published number {err.args[0]!r}; expected "
                          "tables with the rows of data/reference") from None
    out = pd.DataFrame(rows, columns=list(AUDIT_COLUMNS))
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
        return {"location": location, "claims": len(part), **{v: int((part["verdict"] == v).sum()) for v in AUDIT_VERDICTS}}

    rows = [counts(location, part) for location, part in frame.groupby(place, sort=False)]
    return pd.DataFrame(rows + [counts("all", frame)], columns=["location", "claims", *AUDIT_VERDICTS])
