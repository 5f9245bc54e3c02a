"""Agreement between annotators' labels: percent agreement, Cohen's and Fleiss' kappa, Krippendorff's alpha.

An **item** is one labelled answer, ``(system, task_id, repeat)``; each annotator gives it
at most one label out of a set of **nominal** categories (the audit labels and
``not_analyzable``: unordered, every disagreement counts the same). What each measure uses:

``percent_agreement``
    for a pair, the share of items both labelled on which they agree; for ``all``, the
    share of items every annotator labelled on which all agree (unanimity).
``cohen_kappa`` (pairs; Cohen 1960)
    ``(p_o - p_e) / (1 - p_e)`` on the items both labelled, ``p_e`` from each annotator's
    own label shares.
``fleiss_kappa`` (``all``; Fleiss 1971)
    on the items every annotator labelled (an item one of them left out is dropped), with
    ``p_e`` from the pooled label shares; with two annotators it is Scott's pi.
``krippendorff_alpha`` (``all``; Krippendorff 2011, nominal metric)
    ``1 - D_o / D_e`` from the coincidence matrix of every item labelled by two or more
    annotators, so it uses all labels that can be paired (missing labels allowed); an
    item with a single label carries no information about agreement and is left out.

A kappa or alpha is **undefined** (NaN, with a note) when the expected agreement is 1 or
the expected disagreement is 0: every label used is the same category, so chance alone
explains the agreement. Intervals are percentile **bootstrap** intervals that resample
**tasks** by default (``cluster="task_id"``): the answers of different systems (and
repeats) to one task are drawn together, since they share the task's difficulty and are not
independent of each other; tasks are assumed independent (a constraint task and its goal
variant are two tasks). ``cluster=None`` resamples the answers as independent items.
``n_boot`` resamples with replacement (one weight matrix per set of items, shared by the
measures on that set; numpy ``Generator`` seeded by ``seed``); a resample where the measure
is undefined is left out, and the note says how often that happened.

:func:`cohen_kappa`, :func:`fleiss_kappa` and :func:`krippendorff_alpha` are the plain
measures on arrays (tested against scikit-learn, statsmodels and the ``krippendorff``
package); :func:`agreement` is the table; :func:`confusion_matrix` and
:func:`category_agreement` show where annotators differ.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from ..errors import SgrKitError, where
from ..load.labels import label_code
from ..schema import AGREEMENT_COLUMNS, ANNOTATION_LABELS, TEXT_DTYPE
from ._resample import problem_weights

__all__ = [
    "ITEM", "CLUSTERS", "agreement", "cohen_kappa", "fleiss_kappa", "krippendorff_alpha", "confusion_matrix",
    "category_agreement", "label_matrix", "simulate_annotators", "population_agreement", "population_kappa",
]  # fmt: skip

#: The columns that name an item (one labelled answer).
ITEM = ("system", "task_id", "repeat")
#: What :func:`agreement`'s bootstrap may resample as one unit (None: each item).
CLUSTERS = ("task_id", "system", None)
_REQUIRED = (*ITEM, "annotator", "label")
_UNDEFINED = "undefined: the expected agreement is 1 (every label is the same category)"


def _row_where(labels: pd.DataFrame, position: int) -> str:
    if {"file", "line"} <= set(labels.columns):
        return where(labels["file"].iloc[position], int(labels["line"].iloc[position]))
    return f"labels row {position}"


def label_matrix(labels: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Check a labels table and spread it to one row per item and one column per annotator.

    Parameters
    ----------
    labels : DataFrame
        ``system, task_id, repeat, annotator, label`` (as :func:`sgr_kit.load.labels.load_labels`
        returns; labels may be codes or the paper's names).

    Returns
    -------
    (DataFrame, list of str)
        The items (``system, task_id, repeat`` as the index, sorted) by annotators (sorted),
        holding label codes or None; and the categories used, in the order of
        :data:`~sgr_kit.schema.ANNOTATION_LABELS`.

    Raises
    ------
    SgrKitError
        For a missing column, an unknown label, or an annotator labelling an item twice
        (naming the file and line when the table has them).
    """
    if not isinstance(labels, pd.DataFrame):
        raise SgrKitError(f"labels: expected a DataFrame with columns {', '.join(_REQUIRED)}, found "
                          f"{type(labels).__name__}")
    missing = [c for c in _REQUIRED if c not in labels.columns]
    if missing:
        raise SgrKitError(f"labels: lacks column(s) {', '.join(missing)}; expected {', '.join(_REQUIRED)} "
                          f"(the table of sgr_kit.annotate.load_labels)")
    codes = [label_code(text) for text in labels["label"]]
    for position, code in enumerate(codes):
        if code is None:
            raise SgrKitError(f"{_row_where(labels, position)}: unknown label {labels['label'].iloc[position]!r}; "
                              f"expected one of {', '.join(ANNOTATION_LABELS)}")
    try:
        repeats = labels["repeat"].astype("int64").to_numpy()
    except (TypeError, ValueError):
        raise SgrKitError("labels: column 'repeat' must hold whole numbers (no empty cells)") from None
    frame = pd.DataFrame({
        "system": labels["system"].astype(str).to_numpy(), "task_id": labels["task_id"].astype(str).to_numpy(),
        "repeat": repeats, "annotator": labels["annotator"].astype(str).to_numpy(),
        "label": codes,
    })  # fmt: skip
    twice = frame.duplicated([*ITEM, "annotator"], keep="first")
    if twice.any():
        position = int(np.flatnonzero(twice.to_numpy())[0])
        row = frame.iloc[position]
        raise SgrKitError(f"{_row_where(labels, position)}: annotator {row['annotator']!r} labelled (system "
                          f"{row['system']!r}, task {row['task_id']!r}, repeat {row['repeat']}) twice")
    wide = frame.pivot(index=list(ITEM), columns="annotator", values="label").sort_index()
    wide = wide.reindex(columns=sorted(wide.columns)).astype(object)
    wide = wide.where(wide.notna(), None)
    wide.columns.name = None
    used = set(codes)
    return wide, [c for c in ANNOTATION_LABELS if c in used]


def _one_hot(values: np.ndarray, categories: list[str]) -> np.ndarray:
    index = {c: i for i, c in enumerate(categories)}
    out = np.zeros((len(values), len(categories)))
    out[np.arange(len(values)), [index[v] for v in values]] = 1.0
    return out


def _counts(rows: np.ndarray, categories: list[str]) -> np.ndarray:
    """Items x categories: how many annotators gave each item each category (None: no label)."""
    index = {c: i for i, c in enumerate(categories)}
    out = np.zeros((rows.shape[0], len(categories)))
    for j in range(rows.shape[1]):
        for i, value in enumerate(rows[:, j]):
            if value is not None:
                out[i, index[value]] += 1
    return out


def _safe_ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.isclose(denominator, 0.0, atol=1e-12), np.nan, numerator / denominator)


# ---- the measures on weights: w has shape (r, n_items); one row is one (re)sample ----

def _cohen_w(a: np.ndarray, b: np.ndarray, w: np.ndarray) -> np.ndarray:
    n = w.sum(axis=1)
    po = w @ (a * b).sum(axis=1) / n
    pe = ((w @ a) * (w @ b)).sum(axis=1) / n**2
    return _safe_ratio(po - pe, 1.0 - pe)


def _fleiss_w(counts: np.ndarray, w: np.ndarray) -> np.ndarray:
    m = counts.sum(axis=1)
    share = ((counts**2).sum(axis=1) - m) / (m * (m - 1))
    n = w.sum(axis=1)
    p_bar = w @ share / n
    p = (w @ counts) / (n * m[0])[:, None]
    pe = (p**2).sum(axis=1)
    return _safe_ratio(p_bar - pe, 1.0 - pe)


def _alpha_w(counts: np.ndarray, w: np.ndarray) -> np.ndarray:
    m = counts.sum(axis=1)
    disagree = (m**2 - (counts**2).sum(axis=1)) / (m - 1)
    n_c = w @ counts
    n = n_c.sum(axis=1)
    expected = n**2 - (n_c**2).sum(axis=1)
    return 1.0 - _safe_ratio((n - 1.0) * (w @ disagree), expected)


def _agree_w(agree: np.ndarray, w: np.ndarray) -> np.ndarray:
    return w @ agree / w.sum(axis=1)


def cohen_kappa(first, second) -> float:
    """Cohen's kappa of two annotators' labels of the same items (nominal; NaN when undefined).

    ``kappa = (p_o - p_e) / (1 - p_e)``: ``p_o`` the share of items with the same label,
    ``p_e = sum_c p1_c p2_c`` from each annotator's own label shares. Assumes nominal
    categories and independent items; undefined (NaN) when ``p_e = 1`` (both used one and the
    same category throughout).

    Examples
    --------
    >>> round(cohen_kappa(["a", "a", "b", "b"], ["a", "b", "b", "b"]), 4)
    0.5
    >>> import math; math.isnan(cohen_kappa(["a", "a"], ["a", "a"]))
    True
    """
    first, second = np.asarray(first, dtype=object), np.asarray(second, dtype=object)
    if first.shape != second.shape or first.ndim != 1 or len(first) == 0:
        raise SgrKitError(f"cohen_kappa: expected two equally long, non-empty lists of labels; found "
                          f"{first.shape} and {second.shape}")
    categories = sorted(set(first) | set(second), key=str)
    return float(_cohen_w(_one_hot(first, categories), _one_hot(second, categories), np.ones((1, len(first))))[0])


def fleiss_kappa(counts) -> float:
    """Fleiss' kappa from an items x categories table of counts (every item rated by the same number m >= 2).

    ``kappa = (P_bar - P_e) / (1 - P_e)`` with ``P_i = (sum_c n_ic^2 - m) / (m (m - 1))`` and
    ``P_e = sum_c p_c^2`` from the pooled category shares. Assumes nominal categories,
    independent items and the same number of ratings per item; NaN when ``P_e = 1``.

    Examples
    --------
    >>> round(fleiss_kappa([[2, 0], [0, 2], [1, 1], [2, 0]]), 4)
    0.4667
    """
    counts = np.asarray(counts, dtype=float)
    m = counts.sum(axis=1) if counts.ndim == 2 else np.array([])
    if counts.ndim != 2 or len(counts) == 0 or not np.all(m == m[0]) or m[0] < 2:
        raise SgrKitError("fleiss_kappa: expected a non-empty items x categories table with the same number "
                          "(>= 2) of ratings in every row")
    return float(_fleiss_w(counts, np.ones((1, len(counts))))[0])


def krippendorff_alpha(counts) -> float:
    """Krippendorff's alpha (nominal) from an items x categories table of counts; missing ratings allowed.

    ``alpha = 1 - (n - 1) sum_u (m_u^2 - sum_c n_uc^2) / (m_u - 1) / (n^2 - sum_c n_c^2)``:
    the coincidence-matrix form of Krippendorff (2011) for the nominal metric, over the
    items with ``m_u >= 2`` ratings (``n`` their ratings in all, ``n_c`` per category).
    Assumes nominal categories and independent items; NaN when every pairable rating is
    one category (no expected disagreement).

    Examples
    --------
    >>> round(krippendorff_alpha([[2, 0], [0, 2], [1, 1], [2, 0]]), 4)
    0.5333
    """
    counts = np.asarray(counts, dtype=float)
    if counts.ndim != 2:
        raise SgrKitError("krippendorff_alpha: expected an items x categories table of counts")
    counts = counts[counts.sum(axis=1) >= 2]
    if len(counts) == 0:
        return float("nan")
    return float(_alpha_w(counts, np.ones((1, len(counts))))[0])


def _interval(point: float, resampled: np.ndarray, ci: float) -> tuple[float, float, str]:
    if np.isnan(point) or len(resampled) == 0:
        return np.nan, np.nan, ""
    defined = resampled[~np.isnan(resampled)]
    if len(defined) == 0:
        return np.nan, np.nan, "undefined in every resample"
    low, high = np.quantile(defined, [(1 - ci) / 2, (1 + ci) / 2])
    dropped = len(resampled) - len(defined)
    note = f"{dropped} of {len(resampled)} resamples undefined, left out" if dropped else ""
    return float(low), float(high), note


def agreement(labels: pd.DataFrame, *, n_boot: int = 2000, ci: float = 0.95, seed: int = 0,
              cluster: str | None = "task_id") -> pd.DataFrame:
    """Agreement between two or more annotators, with bootstrap intervals over tasks (or items).

    Parameters
    ----------
    labels : DataFrame
        ``system, task_id, repeat, annotator, label`` (e.g. :func:`sgr_kit.annotate.load_labels`
        of two or more annotators' files); labels are codes of
        :data:`~sgr_kit.schema.ANNOTATION_LABELS` or the paper's names.
    n_boot : int, default 2000
        Bootstrap resamples of the items (0: no intervals).
    ci : float, default 0.95
        Level of the percentile intervals.
    seed : int, default 0
        Seed of the numpy ``Generator``; the same seed gives the same intervals.
    cluster : {"task_id", "system"} or None, default "task_id"
        What the bootstrap resamples: every answer to one task together (the default), every
        answer of one system together, or (None) each answer on its own.

    Returns
    -------
    DataFrame
        :data:`~sgr_kit.schema.AGREEMENT_COLUMNS`: ``measure, annotators, n_items, value,
        ci_low, ci_high, note``, one row per measure and annotator set: ``percent_agreement``
        and ``cohen_kappa`` for every pair (``annotators`` = ``"a|b"``, names sorted) and
        ``percent_agreement``, ``fleiss_kappa`` and ``krippendorff_alpha`` for ``all``.
        ``value`` and the interval are proportions (kappa and alpha: at most 1, may be
        negative); ``n_items`` counts the items each row uses (see the module docstring:
        pairs use the items both labelled, Fleiss and the ``all`` percent agreement the
        items everyone labelled, Krippendorff every item with two or more labels). An
        undefined value is NaN with a note; the note also tells how many resamples were
        undefined.

    Raises
    ------
    SgrKitError
        For a malformed labels table (see :func:`label_matrix`), fewer than two
        annotators, ``n_boot < 0``, ``ci`` outside (0, 1) or an unknown ``cluster``.

    Notes
    -----
    Assumes nominal categories and independent clusters (tasks, by default); missing labels
    are allowed (each measure uses the items it can, as above). The intervals are percentile
    intervals of ``n_boot`` resamples of the clusters; their coverage is measured on simulated
    annotators in ``benchmarks/agreement_coverage.py``, with tasks of different difficulty,
    where resampling answers as independent items gives intervals that are too narrow.

    Examples
    --------
    >>> labels = pd.DataFrame({
    ...     "system": ["m"] * 8, "task_id": ["t1", "t2", "t3", "t4"] * 2, "repeat": 0,
    ...     "annotator": ["ann"] * 4 + ["bob"] * 4,
    ...     "label": ["correct", "scope_drift", "scope_drift", "final_answer",
    ...               "correct", "scope_drift", "criterion_mismatch", "final_answer"]})
    >>> table = agreement(labels, n_boot=200)
    >>> print(table[["measure", "annotators", "n_items", "value"]].round(3).to_string(index=False))
               measure annotators  n_items  value
     percent_agreement    ann|bob        4  0.750
     percent_agreement        all        4  0.750
           cohen_kappa    ann|bob        4  0.667
          fleiss_kappa        all        4  0.652
    krippendorff_alpha        all        4  0.696
    """
    if int(n_boot) < 0:
        raise SgrKitError(f"n_boot: expected a whole number >= 0, found {n_boot!r}")
    if not 0 < float(ci) < 1:
        raise SgrKitError(f"ci: expected a level between 0 and 1 (e.g. 0.95), found {ci!r}")
    if cluster not in CLUSTERS:
        raise SgrKitError(f"cluster: expected one of {', '.join(map(repr, CLUSTERS))}, found {cluster!r}")
    wide, categories = label_matrix(labels)
    groups = None if cluster is None else wide.index.get_level_values(cluster).astype(str).to_numpy()
    annotators = list(wide.columns)
    if len(annotators) < 2:
        raise SgrKitError(f"agreement: expected labels of two or more annotators, found "
                          f"{', '.join(map(repr, annotators)) or 'none'}")
    rng = np.random.default_rng(seed)
    values = wide.to_numpy(dtype=object)
    rows: list[tuple] = []
    drawn: dict[bytes, np.ndarray] = {}

    def resample(mask: np.ndarray) -> np.ndarray:
        # one set of resamples per set of items: measures on the same items share their resamples
        key = np.packbits(mask).tobytes() + len(mask).to_bytes(8, "little")
        if key not in drawn:
            if groups is None:
                drawn[key] = problem_weights(rng, int(mask.sum()), int(n_boot))
            else:  # a cluster's weight goes to each of its items
                names, codes = np.unique(groups[mask], return_inverse=True)
                drawn[key] = problem_weights(rng, len(names), int(n_boot))[:, codes]
        return drawn[key]

    def measure(name: str, who: str, kernel, data: tuple, mask: np.ndarray, note: str = "") -> None:
        n_items = int(mask.sum())
        if n_items == 0:
            rows.append((name, who, 0, np.nan, np.nan, np.nan, note or "no items to compare"))
            return
        point = float(kernel(*data, np.ones((1, n_items)))[0])
        resampled = kernel(*data, resample(mask)) if n_boot else np.array([])
        low, high, boot_note = _interval(point, resampled, float(ci))
        notes = [note] if note else []
        if np.isnan(point) and name != "percent_agreement":
            notes.append(_UNDEFINED)
        elif boot_note:
            notes.append(boot_note)
        rows.append((name, who, n_items, point, low, high, "; ".join(notes)))

    for first, second in combinations(range(len(annotators)), 2):
        who = f"{annotators[first]}|{annotators[second]}"
        both = np.array([values[i, first] is not None and values[i, second] is not None
                         for i in range(len(values))], dtype=bool)  # fmt: skip
        a = _one_hot(values[both, first], categories)
        b = _one_hot(values[both, second], categories)
        measure("percent_agreement", who, _agree_w, ((a * b).sum(axis=1),), both)
        measure("cohen_kappa", who, _cohen_w, (a, b), both)
    complete = np.array([all(v is not None for v in row) for row in values], dtype=bool)
    full = _counts(values[complete], categories)
    unanimous = (full.max(axis=1) == len(annotators)).astype(float) if len(full) else np.zeros(0)
    measure("percent_agreement", "all", _agree_w, (unanimous,), complete)
    measure("fleiss_kappa", "all", _fleiss_w, (full,), complete)
    everything = _counts(values, categories)
    pairable = everything.sum(axis=1) >= 2
    single = int((everything.sum(axis=1) == 1).sum())
    measure("krippendorff_alpha", "all", _alpha_w, (everything[pairable],), pairable,
            f"{single} item(s) with one label left out" if single else "")
    out = pd.DataFrame(rows, columns=list(AGREEMENT_COLUMNS))
    out["order"] = out["measure"].map({m: i for i, m in enumerate(
        ("percent_agreement", "cohen_kappa", "fleiss_kappa", "krippendorff_alpha"))})
    out = out.sort_values(["order"], kind="stable").drop(columns="order").reset_index(drop=True)
    for column in ("measure", "annotators", "note"):
        out[column] = out[column].astype(TEXT_DTYPE)
    out["n_items"] = out["n_items"].astype("int64")
    return out


def confusion_matrix(labels: pd.DataFrame, first: str, second: str) -> pd.DataFrame:
    """Counts of ``first``'s label (rows) against ``second``'s (columns) on the items both labelled.

    Rows and columns are every category either annotator used anywhere, in the order of
    :data:`~sgr_kit.schema.ANNOTATION_LABELS`; the diagonal is agreement.

    Examples
    --------
    >>> labels = pd.DataFrame({"system": "m", "task_id": ["t1", "t2", "t1", "t2"], "repeat": 0,
    ...                        "annotator": ["a", "a", "b", "b"],
    ...                        "label": ["correct", "scope_drift", "correct", "intent_rewriting"]})
    >>> confusion_matrix(labels, "a", "b").to_dict()
    ... # doctest: +NORMALIZE_WHITESPACE
    {'scope_drift': {'scope_drift': 0, 'intent_rewriting': 0, 'correct': 0},
     'intent_rewriting': {'scope_drift': 1, 'intent_rewriting': 0, 'correct': 0},
     'correct': {'scope_drift': 0, 'intent_rewriting': 0, 'correct': 1}}
    """
    wide, categories = label_matrix(labels)
    for name in (first, second):
        if name not in wide.columns:
            raise SgrKitError(f"confusion_matrix: no annotator {name!r}; the labels have "
                              f"{', '.join(map(repr, wide.columns))}")
    both = wide[[first, second]].dropna()
    used = [c for c in categories if c in set(wide[first].dropna()) | set(wide[second].dropna())]
    table = pd.crosstab(pd.Categorical(both[first], categories=used), pd.Categorical(both[second], categories=used),
                        dropna=False)
    table.index = pd.Index(used, name=first)
    table.columns = pd.Index(used, name=second)
    return table.astype("int64")


def category_agreement(labels: pd.DataFrame) -> pd.DataFrame:
    """Agreement on each category: for each pair and for all annotators.

    For a category ``c``, the share of its uses that another annotator matched:
    ``sum_i n_ic (n_ic - 1) / sum_i n_ic (m - 1)`` over the items every annotator of the set
    labelled (``n_ic`` annotators gave item ``i`` label ``c``, ``m`` annotators). For a pair
    it is the specific agreement ``2 n_cc / (n_c. + n_.c)``. NaN when nobody used ``c``.

    Returns
    -------
    DataFrame
        ``annotators, label, n_labels, value``: ``n_labels`` how often the set used ``c``.

    Examples
    --------
    >>> labels = pd.DataFrame({"system": "m", "task_id": ["t1", "t2", "t1", "t2"], "repeat": 0,
    ...                        "annotator": ["a", "a", "b", "b"],
    ...                        "label": ["correct", "scope_drift", "correct", "intent_rewriting"]})
    >>> category_agreement(labels).query("annotators == 'a|b'")[["label", "n_labels", "value"]].to_dict("records")
    ... # doctest: +NORMALIZE_WHITESPACE
    [{'label': 'scope_drift', 'n_labels': 1, 'value': 0.0},
     {'label': 'intent_rewriting', 'n_labels': 1, 'value': 0.0},
     {'label': 'correct', 'n_labels': 2, 'value': 1.0}]
    """
    wide, categories = label_matrix(labels)
    annotators = list(wide.columns)
    sets = [("|".join(pair), list(pair)) for pair in combinations(annotators, 2)] + [("all", annotators)]
    records = []
    for who, group in sets:
        rows = wide[group].dropna().to_numpy(dtype=object)
        counts = _counts(rows, categories)
        m = len(group)
        for j, category in enumerate(categories):
            used = counts[:, j]
            denominator = (used * (m - 1)).sum()
            value = (used * (used - 1)).sum() / denominator if denominator else np.nan
            records.append((who, category, int(used.sum()), float(value)))
    out = pd.DataFrame(records, columns=["annotators", "label", "n_labels", "value"])
    for column in ("annotators", "label"):
        out[column] = out[column].astype(TEXT_DTYPE)
    return out


def simulate_annotators(
    n_items: int, n_annotators: int, *, accuracy: float, shares, seed: int = 0, missing: float = 0.0,
    tasks: int | None = None, spread: float = 0.0,
) -> pd.DataFrame:
    """SYNTHETIC labels of simulated annotators, for checking the intervals (not real annotations).

    Each item has a true category drawn with probabilities ``shares`` (one per code of
    :data:`~sgr_kit.schema.ANNOTATION_LABELS`, in order, or fewer: the first ones). Each
    annotator independently gives the true category with probability ``accuracy``, else a
    category drawn uniformly from all of them; each label is left out with probability
    ``missing``. The population value of every measure is :func:`population_kappa`.

    With ``tasks``, the items are answers to that many tasks (item ``i`` answers task
    ``i mod tasks``, as repeat ``i div tasks``), and tasks differ in difficulty: on each task
    the annotators' accuracy is ``accuracy + spread`` or ``accuracy - spread``, each with
    probability one half. Answers to one task then agree more (or less) alike: they are not
    independent items, which is what the task bootstrap of :func:`agreement` allows for.

    Returns
    -------
    DataFrame
        ``system, task_id, repeat, annotator, label`` (annotators ``a0``, ``a1``, ...).
    """
    rng = np.random.default_rng(seed)
    shares = np.asarray(shares, dtype=float)
    if not (0 <= accuracy - spread and accuracy + spread <= 1):
        raise SgrKitError(f"simulate_annotators: accuracy +- spread must lie in [0, 1], found {accuracy} +- {spread}")
    categories = np.array(ANNOTATION_LABELS[: len(shares)], dtype=object)
    truth = rng.choice(len(shares), size=n_items, p=shares / shares.sum())
    n_tasks = n_items if tasks is None else int(tasks)
    task = np.arange(n_items) % n_tasks
    per_task = accuracy + spread * rng.choice([-1.0, 1.0], size=n_tasks) if spread else np.full(n_tasks, accuracy)
    keep = rng.random((n_annotators, n_items)) < per_task[task][None, :]
    guess = rng.integers(0, len(shares), size=(n_annotators, n_items))
    given = np.where(keep, truth[None, :], guess)
    present = rng.random((n_annotators, n_items)) >= missing
    a, i = np.nonzero(present)
    return pd.DataFrame({"system": "SYNTHETIC", "task_id": [f"t{k:05d}" for k in task[i]],
                         "repeat": np.arange(n_items)[i] // n_tasks,
                         "annotator": [f"a{k}" for k in a], "label": categories[given[a, i]]})


def population_agreement(*, accuracy: float, shares, annotators: int = 2, spread: float = 0.0) -> float:
    """The population share of items on which ``annotators`` of :func:`simulate_annotators` all agree.

    ``sum_t pi_t sum_c q(c | t)^m`` with ``q(c | t) = a [c = t] + (1 - a) / K``; with a
    ``spread`` of accuracy between tasks, the average of that at ``a = accuracy +- spread``.

    Examples
    --------
    >>> population_agreement(accuracy=1.0, shares=[0.5, 0.5]), population_agreement(accuracy=0.0, shares=[1, 1])
    (1.0, 0.5)
    """
    pi = np.asarray(shares, dtype=float)
    pi = pi / pi.sum()
    accuracies = (accuracy - spread, accuracy + spread) if spread else (accuracy,)
    return float(np.mean([pi @ (_confusion(a, len(pi)) ** annotators).sum(axis=1) for a in accuracies]))


def _confusion(accuracy: float, k: int) -> np.ndarray:
    """``q[t, c]``: the chance that an annotator of accuracy ``accuracy`` labels category ``t`` as ``c``."""
    return accuracy * np.eye(k) + (1 - accuracy) / k


def population_kappa(*, accuracy: float, shares, spread: float = 0.0) -> float:
    """The population kappa of two annotators of :func:`simulate_annotators` (also Fleiss' kappa and alpha's limit).

    With ``q(c | t) = a [c = t] + (1 - a) / K`` for accuracy ``a``, the joint law of two
    annotators is ``P(c, d) = sum_t pi_t q(c | t) q(d | t)``; kappa is
    ``(p_o - p_e) / (1 - p_e)`` with ``p_o = sum_c P(c, c)`` (:func:`population_agreement`)
    and ``p_e = sum_c q_c^2``. Both annotators have the same marginal, so Cohen's, Fleiss'
    and (as items grow) Krippendorff's measures share this value. With a ``spread`` of
    accuracy between tasks, ``p_o`` is the average of its values at ``accuracy +- spread``;
    the marginal, linear in ``a``, is that at ``accuracy``.

    Examples
    --------
    >>> round(population_kappa(accuracy=1.0, shares=[0.5, 0.5]), 6), round(population_kappa(accuracy=0.0, shares=[1, 1]), 6)
    (1.0, 0.0)
    >>> population_kappa(accuracy=0.7, shares=[0.5, 0.5], spread=0.2) > population_kappa(accuracy=0.7, shares=[0.5, 0.5])
    True
    """
    pi = np.asarray(shares, dtype=float)
    pi = pi / pi.sum()
    po = population_agreement(accuracy=accuracy, shares=pi, spread=spread)
    pe = float(((pi @ _confusion(accuracy, len(pi))) ** 2).sum())
    return float((po - pe) / (1 - pe))
