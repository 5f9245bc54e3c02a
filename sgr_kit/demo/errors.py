"""The demo's generative error model: Appendix G's six failure types as answer edits.

Each function takes the reference rows of a :class:`~sgr_kit.demo.tasks.DemoProblem`,
a seeded ``random.Random`` and a ``severity`` in (0, 1], and returns the rows an
agent with that failure would write (lists of cell strings in schema order, in
answer order). What each type does to the answer follows the paper's
definitions (Appendix G):

``scope_drift`` (retrieval-scope drift)
    The agent works in a neighbouring slice of the source (wrong object set,
    time range or jurisdiction): a share ``severity`` of the reference rows is
    replaced by rows with other keys and plausible values, some extra rows from
    the same neighbouring slice may be added, and a slice-dependent column of the
    rows it kept may carry that slice's values. Depresses Item-F1 and Row-F1 together.
``criterion_mismatch``
    Same rows (same keys, same order) but a wrong decision rule, field
    definition, denominator or time window: 1 to all non-key columns are
    *systematically* wrong across the rows (counts scaled by one factor, dates
    shifted by a year, labels mapped to another label). Moderate Item-F1,
    Row-F1 near zero.
``intent_rewriting``
    An easier surrogate objective: only a subset of the rows (a non-exhaustive
    search) and, sometimes, some columns left empty (approximate summary).
``page_misreading`` (in-page evidence misreading)
    The right page, a few individual cells misread (a wrong value or label;
    occasionally the row's identifying cell itself).
``dependency_error`` (retrieval-dependency errors)
    The dependency chain is not closed: one or a few rows are missing
    (candidates dropped during cross-page alignment), a linked value is wrong,
    or an unresolved candidate is left in the answer.
``final_answer`` (final-answer composition)
    Upstream evidence correct, the table corrupted while writing it: values
    swapped between slots, duplicated rows, rounding/normalization slips and
    digit transcription errors.

Two secondary slips can be added to any answer (see :func:`apply_slips`): an
*ordering* slip (two rows swapped or a block reversed; P.O.A. only) and a
*formatting* slip (thousands separators, a trailing zero, a date respelled, case
changes, Markdown emphasis: all tolerated by the ``paper`` profile), a *formatting loss* (a footnote
marker glued to one cell, which the scorer cannot read) or a *totals row*
appended under the table (an extra row for the scorer). The last two let an
answer whose retrieval was correct score below 100, as the paper's audited
correct trajectories do (Table 6: 95.0).
"""

from __future__ import annotations

from random import Random

from sgr_kit.demo.tasks import DemoProblem

__all__ = ["ERROR_TYPES", "INJECT", "inject", "apply_slips", "wrong_value"]

#: The six failure types of Appendix G, in the paper's order.
ERROR_TYPES = (
    "scope_drift", "criterion_mismatch", "intent_rewriting",
    "page_misreading", "dependency_error", "final_answer",
)

Rows = list[list[str]]


def wrong_value(col, value: str, rng: Random) -> str:
    """A plausible value of column ``col`` that differs from ``value``.

    Examples
    --------
    >>> from sgr_kit.demo.columns import DOMAIN_COLUMNS
    >>> col = DOMAIN_COLUMNS["NVD"][3]
    >>> wrong_value(col, "HIGH", Random(1)) in {"LOW", "MEDIUM", "CRITICAL"}
    True
    """
    for _ in range(30):
        v = col.gen(rng)
        if v.casefold() != value.casefold():
            return v
    return _typo(value, rng) if any(ch.isdigit() for ch in value) else value + " (revised)"


def _typo(value: str, rng: Random) -> str:
    """Change one digit of ``value`` (a transcription slip)."""
    pos = [i for i, ch in enumerate(value) if ch.isdigit()]
    if not pos:
        return value + "?"
    i = rng.choice(pos)
    d = int(value[i])
    new = str((d + rng.randint(1, 8)) % 10)
    if i == 0 and new == "0" and len(pos) > 1:
        new = "9"
    return value[:i] + new + value[i + 1:]


def _scaled(value: str, factor: float, rng: Random, kind: str) -> str:
    try:
        x = float(value)
    except ValueError:
        return _typo(value, rng)
    if kind == "integer":
        y = int(round(x * factor))
        return str(y if y != int(x) else y + 1)
    dp = len(value.split(".")[1]) if "." in value else 0
    out = f"{x * factor:.{dp}f}"
    return out if float(out) != x else _typo(value, rng)


def _systematic(col, values: list[str], rng: Random) -> list[str]:
    """Apply one wrong rule to a whole column (criterion mismatch)."""
    if col.kind in ("integer", "decimal"):
        factor = rng.choice((rng.uniform(1.15, 1.7), rng.uniform(0.45, 0.85)))
        return [_scaled(v, factor, rng, col.kind) for v in values]
    if col.kind == "date":
        shift = rng.choice((-1, 1))
        return [f"{int(v[:4]) + shift}{v[4:]}" if v[:4].isdigit() else _typo(v, rng) for v in values]
    if col.kind == "year":
        shift = rng.choice((-3, -2, -1, 1, 2, 3))
        return [str(int(v) + shift) if v.isdigit() else _typo(v, rng) for v in values]
    mapping: dict[str, str] = {}
    return [mapping.setdefault(v, wrong_value(col, v, rng)) for v in values]


def _nonkey(p: DemoProblem) -> list[int]:
    return list(range(len(p.row_key), len(p.columns)))


def _ref(p: DemoProblem) -> Rows:
    return [list(r) for r in p.rows]


def correct(p: DemoProblem, rng: Random, severity: float) -> Rows:
    """The reference rows unchanged."""
    return _ref(p)


def scope_drift(p: DemoProblem, rng: Random, severity: float) -> Rows:
    """Rows from a neighbouring slice replace a share ``severity`` of the reference rows."""
    rows = _ref(p)
    n, nk = len(rows), len(p.row_key)
    k = max(1, min(n, round(severity * n + rng.uniform(-0.4, 0.4))))
    taken = {tuple(r[:nk]) for r in rows}
    drop = set(rng.sample(range(n), k))
    out = []
    for i, r in enumerate(rows):
        if i in drop:
            fresh = list(p.fresh_row(rng, taken))
            taken.add(tuple(fresh[:nk]))
            out.append(fresh)
        else:
            out.append(r)
    for _ in range(rng.randint(0, max(0, round(severity * n / 3)))):
        fresh = list(p.fresh_row(rng, taken))
        taken.add(tuple(fresh[:nk]))
        out.append(fresh)
    nonkey = _nonkey(p)
    if nonkey and rng.random() < 0.5:
        j = rng.choice(nonkey)
        for r in out:
            r[j] = wrong_value(p.columns[j], r[j], rng)
    if k == n:
        out = p.sort_rows(out)
    return out


def criterion_mismatch(p: DemoProblem, rng: Random, severity: float) -> Rows:
    """Same keys, 1 to all non-key columns systematically wrong."""
    rows = _ref(p)
    nonkey = _nonkey(p)
    m = max(1, min(len(nonkey), round(severity * len(nonkey) + rng.uniform(-0.5, 0.5))))
    hit = rng.sample(range(len(rows)), max(1, round(len(rows) * rng.uniform(0.75, 1.0)))) \
        if rng.random() < 0.3 else range(len(rows))
    for j in rng.sample(nonkey, m):
        new = _systematic(p.columns[j], [r[j] for r in rows], rng)
        for i in hit:
            rows[i][j] = new[i]
    return rows


def intent_rewriting(p: DemoProblem, rng: Random, severity: float) -> Rows:
    """A surrogate objective: a subset of the rows, sometimes with columns left empty."""
    rows = _ref(p)
    n = len(rows)
    keep = max(1, min(n - 1 if n > 1 else 1, round((1 - severity) * n + rng.uniform(-0.4, 0.4))))
    idx = sorted(rng.sample(range(n), keep)) if rng.random() < 0.5 else list(range(keep))
    out = [rows[i] for i in idx]
    nonkey = _nonkey(p)
    if nonkey and rng.random() < 0.45:
        for j in rng.sample(nonkey, max(1, round(len(nonkey) * rng.uniform(0.2, 0.6)))):
            for r in out:
                r[j] = ""
    return out


def page_misreading(p: DemoProblem, rng: Random, severity: float) -> Rows:
    """A few cells misread on the right page (occasionally a row's identifying cell)."""
    rows = _ref(p)
    n = len(rows)
    nonkey = _nonkey(p) or [0]
    touched = rng.sample(range(n), max(1, min(n, round(severity * n * 0.7 + rng.uniform(0, 0.6)))))
    for i in touched:
        if rng.random() < 0.3:
            j = rng.randrange(len(p.row_key))
            rows[i][j] = wrong_value(p.columns[j], rows[i][j], rng)
        for j in rng.sample(nonkey, min(len(nonkey), rng.choice((1, 2, 3)))):
            rows[i][j] = wrong_value(p.columns[j], rows[i][j], rng)
    return rows


def dependency_error(p: DemoProblem, rng: Random, severity: float) -> Rows:
    """Dropped candidates, a wrong linked value, or an unresolved candidate kept."""
    rows = _ref(p)
    n, nk = len(rows), len(p.row_key)
    m = max(1, min(n - 1 if n > 1 else 1, round(severity * n * 0.6 + rng.uniform(0, 0.5))))
    mode = rng.random()
    if mode < 0.55 and n > 1:
        for i in sorted(rng.sample(range(n), m), reverse=True):
            del rows[i]
    elif mode < 0.8:
        nonkey = _nonkey(p) or [0]
        j = rng.choice(nonkey)
        for i in rng.sample(range(n), m):
            rows[i][j] = wrong_value(p.columns[j], rows[i][j], rng)
    else:
        taken = {tuple(r[:nk]) for r in rows}
        if n > 1 and rng.random() < 0.5:
            del rows[rng.randrange(n)]
        for _ in range(m):
            rows.insert(rng.randrange(len(rows) + 1), list(p.fresh_row(rng, taken)))
    return rows


def final_answer(p: DemoProblem, rng: Random, severity: float) -> Rows:
    """Slot swaps, duplicates, rounding and transcription slips while writing the table."""
    rows = _ref(p)
    n = len(rows)
    nonkey = _nonkey(p)
    m = max(1, min(n, round(severity * n + rng.uniform(-0.3, 0.5))))
    for i in rng.sample(range(n), m):
        op = rng.random()
        r = rows[i]
        if op < 0.35 and len(nonkey) >= 2:
            a, b = rng.sample(nonkey, 2)
            r[a], r[b] = r[b], r[a]
            if r[a] == r[b]:
                r[a] = _typo(r[a], rng)
        elif op < 0.55 and n > 1:
            other = rows[rng.choice([x for x in range(n) if x != i])]
            j = rng.choice(nonkey or [0])
            r[j] = other[j] if other[j] != r[j] else _typo(r[j], rng)
        elif op < 0.75:
            j = rng.choice(nonkey or [0])
            v = r[j]
            r[j] = f"{float(v):.{max(0, len(v.split('.')[1]) - 1)}f}" if "." in v and _isnum(v) else _typo(v, rng)
            if r[j] == v or (_isnum(v) and float(r[j]) == float(v)):
                r[j] = _typo(v, rng)
        else:
            j = rng.choice(nonkey or [0])
            r[j] = _typo(r[j], rng)
    if rng.random() < 0.25:
        i = rng.randrange(len(rows))
        rows.insert(i + 1, list(rows[i]))
    return rows


def _slashed(v: str) -> str:
    parts = v.split("-")
    if len(parts) == 3 and all(x.isdigit() for x in parts):
        return f"{parts[0]}/{int(parts[1])}/{int(parts[2])}"
    return v


def _isnum(v: str) -> bool:
    try:
        float(v)
    except ValueError:
        return False
    return True


#: type -> generator (``correct`` included).
INJECT = {
    "correct": correct,
    "scope_drift": scope_drift,
    "criterion_mismatch": criterion_mismatch,
    "intent_rewriting": intent_rewriting,
    "page_misreading": page_misreading,
    "dependency_error": dependency_error,
    "final_answer": final_answer,
}


def inject(p: DemoProblem, error: str, rng: Random, severity: float) -> Rows:
    """Rows of an answer to problem ``p`` with the failure ``error`` (or ``"correct"``).

    Examples
    --------
    >>> from sgr_kit.demo.tasks import make_problems
    >>> p = make_problems(seed=7)[0]
    >>> rows = inject(p, "criterion_mismatch", Random(0), 1.0)
    >>> [r[0] for r in rows] == [r[0] for r in p.rows], rows[0][1:] != list(p.rows[0][1:])
    (True, True)
    """
    return INJECT[error](p, rng, severity)


def apply_slips(p: DemoProblem, rows: Rows, rng: Random, *, order: bool, fmt: bool, loss: bool,
                total: bool = False) -> Rows:
    """Add an ordering slip, tolerated formatting slips, one formatting loss and/or a totals row.

    Examples
    --------
    >>> from sgr_kit.demo.tasks import make_problems
    >>> p = make_problems(seed=7)[0]
    >>> rows = apply_slips(p, [list(r) for r in p.rows], Random(3), order=True, fmt=False, loss=False)
    >>> sorted(rows) == sorted(list(r) for r in p.rows), rows != [list(r) for r in p.rows]
    (True, True)
    """
    rows = [list(r) for r in rows]
    if order and len(rows) >= 2:
        if rng.random() < 0.5 or len(rows) == 2:
            i = rng.randrange(len(rows) - 1)
            rows[i], rows[i + 1] = rows[i + 1], rows[i]
        else:
            a = rng.randrange(len(rows) - 1)
            b = rng.randint(a + 2, len(rows))
            rows[a:b] = rows[a:b][::-1]
    if fmt:
        last = len(p.columns) - 1
        for j, col in enumerate(p.columns):
            values = [r[j] for r in rows if r[j]]
            x = rng.random()
            if col.kind == "integer" and 0 < j < last and values and all(v.isdigit() and int(v) >= 1000
                                                                        for v in values):
                if x < 0.7:  # thousands separators (a middle column: a record's width stays readable)
                    for r in rows:
                        r[j] = f"{int(r[j]):,}" if r[j] else r[j]
            elif col.kind == "decimal" and x < 0.5:  # a trailing zero
                for r in rows:
                    r[j] = f"{r[j]}0" if r[j] and "." in r[j] else r[j]
            elif col.kind == "date" and x < 0.5:  # 2018-02-07 -> 2018/2/7
                for r in rows:
                    r[j] = _slashed(r[j])
            elif col.kind == "label" and j >= len(p.row_key) and x < 0.5:  # case
                for r in rows:
                    r[j] = r[j].lower() if r[j] != r[j].lower() else r[j].upper()
            elif j == 0 and x < 0.3:
                for r in rows:
                    r[j] = f"**{r[j]}**" if r[j] else r[j]
    if loss and rows:
        nonkey = _nonkey(p) or [0]
        r = rng.choice(rows)
        j = rng.choice(nonkey)
        if r[j]:
            r[j] = f"{r[j]}\u2020"
    if total and rows:
        rows.append(["Total"] + [""] * (len(p.columns) - 1))
    return rows
