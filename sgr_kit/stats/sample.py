"""The audit sample: aligned task slots drawn at random, the same tasks for every system.

The paper audits "176 trace-bearing trajectories from eight CLI-based agents over 22
randomly sampled aligned task slots" (Appendix G): a **slot** is one task (one variant of a
base problem), and every system's answer to it is labelled, so systems are compared on the
same tasks. :func:`audit_sample` draws such slots from a scores table, reproducibly from a
seed; ``sgr-kit sample`` writes the result as the annotation sheet.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np
import pandas as pd

from ..errors import SgrKitError, closest
from ..schema import SAMPLE_COLUMNS, TEXT_DTYPE

__all__ = ["BALANCE_KEYS", "audit_sample", "check_balance"]

#: What a sample can be balanced over.
BALANCE_KEYS: tuple[str, ...] = ("family", "variant")


def check_balance(balance: str | Iterable[str] | None) -> tuple[str, ...]:
    """``"family,variant"``, a list of those names or None -> a tuple of :data:`BALANCE_KEYS`.

    Examples
    --------
    >>> check_balance("variant, family"), check_balance(None)
    (('variant', 'family'), ())
    """
    if balance is None:
        return ()
    names = [b.strip() for b in (balance.split(",") if isinstance(balance, str) else balance)]
    names = [b for b in names if b]
    unknown = [b for b in names if b not in BALANCE_KEYS]
    if unknown or len(set(names)) != len(names):
        raise SgrKitError(f"balance: expected a comma-separated choice of {', '.join(BALANCE_KEYS)} (each once), "
                          f"found {','.join(names)!r}")
    return tuple(names)


def _allocate(sizes: list[int], slots: int, rng: np.random.Generator) -> list[int]:
    """Equal allocation of ``slots`` over strata of these sizes (water-filling), the remainder to random strata.

    Every stratum gets ``min(size, L)`` for the largest level ``L`` that fits; the slots left
    (fewer than the strata larger than ``L``) go one each to strata larger than ``L``, chosen
    at random.
    """
    level = 0
    while sum(min(size, level + 1) for size in sizes) <= slots and level < max(sizes):
        level += 1
    take = [min(size, level) for size in sizes]
    left = slots - sum(take)
    room = [i for i, size in enumerate(sizes) if size > level]
    for i in rng.permutation(room)[:left].tolist():
        take[i] += 1
    return take


def audit_sample(
    scores: pd.DataFrame,
    *,
    slots: int = 22,
    seed: int = 0,
    balance: str | Iterable[str] | None = None,
    systems: Iterable[str] | None = None,
) -> pd.DataFrame:
    """Draw aligned audit slots: ``slots`` tasks, and every system's answer to each.

    Parameters
    ----------
    scores : DataFrame
        A scores table (``sgr-kit score``): at least ``system, task_id, repeat, variant``,
        and ``family`` to balance over families.
    slots : int, default 22
        Task slots to draw (the paper's 22; 22 slots x 8 systems = 176 answers).
    seed : int, default 0
        Seed of the numpy ``Generator``: the same scores, slots, seed and balance give the
        same sample.
    balance : str or list of str, optional
        ``"family"``, ``"variant"`` or ``"family,variant"``. Without it, slots are a simple
        random sample of the eligible tasks. With it, the eligible tasks are split into
        strata (each family, each variant, or each family-and-variant pair) and the slots
        are **allocated equally** across strata (``slots // strata`` each, the remainder to
        strata chosen at random; a stratum with too few tasks gives all it has and the rest
        goes equally to the others), then drawn at random within each stratum. Equal, not
        proportional, allocation, so that small families are audited at all.
    systems : list of str, optional
        The systems to audit (e.g. the agents whose trajectories you have); default: all.

    Returns
    -------
    DataFrame
        :data:`~sgr_kit.schema.SAMPLE_COLUMNS`: ``system, task_id, repeat, slot, family,
        variant``, one row per system and slot, ordered by slot (1, 2, ...: the order the
        slots were drawn in) then system (sorted). ``repeat`` is one of the system's repeats
        of that task, drawn at random.

    Raises
    ------
    SgrKitError
        For a missing column, ``slots < 1``, more slots than eligible tasks, an unknown
        balance key or system, or a task without a family when balancing over families.

    Notes
    -----
    A task is eligible when every system in ``scores`` has an answer row for it (any status:
    an answer scored ``missing`` may still have a trajectory to audit; label it
    ``not_analyzable`` when it has none). The draw is without replacement.

    References
    ----------
    SGR-Bench paper, Appendix G (the audit of 176 trajectories over 22 aligned task slots).

    Examples
    --------
    >>> scores = pd.DataFrame({"system": ["m", "n"] * 4, "task_id": ["a", "a", "a-g", "a-g", "b", "b", "b-g", "b-g"],
    ...                        "repeat": 0, "variant": ["constraint"] * 2 + ["goal"] * 2 + ["constraint"] * 2 + ["goal"] * 2})
    >>> sheet = audit_sample(scores, slots=2, seed=1, balance="variant")
    >>> sorted(sheet["variant"].unique()), len(sheet), sheet.groupby("slot")["system"].apply(list).tolist()
    (['constraint', 'goal'], 4, [['m', 'n'], ['m', 'n']])
    """
    keys = check_balance(balance)
    need = ["system", "task_id", "repeat", "variant", *(["family"] if "family" in keys else [])]
    if not isinstance(scores, pd.DataFrame):
        raise SgrKitError(f"scores: expected a scores table (DataFrame), found {type(scores).__name__}")
    missing = [c for c in need if c not in scores.columns]
    if missing:
        raise SgrKitError(f"scores: lacks column(s) {', '.join(missing)}; expected a scores table of `sgr-kit score`")
    if isinstance(slots, bool) or not isinstance(slots, (int, np.integer)) or slots < 1:
        raise SgrKitError(f"slots: expected a whole number >= 1, found {slots!r}")
    frame = scores.assign(system=scores["system"].astype(str), task_id=scores["task_id"].astype(str),
                          repeat=scores["repeat"].astype("int64"))  # fmt: skip
    if "family" not in frame.columns:
        frame["family"] = None
    if systems is not None:
        wanted = [str(s) for s in ([systems] if isinstance(systems, str) else systems)]
        known = set(frame["system"])
        for name in wanted:
            if name not in known:
                hint = closest(name, known)
                raise SgrKitError(f"systems: no system {name!r} in the scores table"
                                  + (f"; did you mean {', '.join(map(repr, hint))}?" if hint else
                                     f"; it has {', '.join(map(repr, sorted(known)))}"))
        frame = frame[frame["system"].isin(wanted)]
    systems = sorted(frame["system"].unique())
    answered = frame.groupby("task_id")["system"].nunique()
    eligible = sorted(answered.index[answered == len(systems)])
    if slots > len(eligible):
        raise SgrKitError(f"slots: {slots} requested, but only {len(eligible)} task(s) have an answer from every one "
                          f"of the {len(systems)} system(s)")
    tasks = frame.drop_duplicates("task_id").set_index("task_id").loc[eligible, ["family", "variant"]]
    if "family" in keys and tasks["family"].isna().any():
        raise SgrKitError(f"balance family: task {tasks.index[tasks['family'].isna()][0]!r} has no family in the "
                          "scores table")
    rng = np.random.default_rng(seed)
    if not keys:
        chosen = [eligible[i] for i in rng.choice(len(eligible), size=slots, replace=False)]
    else:
        strata = [list(group.index) for _, group in tasks.groupby(list(keys), sort=True)]
        counts = _allocate([len(s) for s in strata], slots, rng)
        chosen = [s[i] for s, k in zip(strata, counts) for i in rng.choice(len(s), size=k, replace=False)]
        chosen = [chosen[i] for i in rng.permutation(len(chosen))]
    picked = frame.loc[frame["task_id"].isin(chosen), ["system", "task_id", "repeat"]]
    repeats: dict[tuple[str, str], set] = {}
    for system, task, repeat in picked.itertuples(index=False, name=None):
        repeats.setdefault((system, task), set()).add(int(repeat))
    strata = tasks.to_dict("index")
    rows = []
    for slot, task in enumerate(chosen, start=1):
        for system in systems:
            options = sorted(repeats[(system, task)])
            repeat = options[int(rng.integers(len(options)))] if len(options) > 1 else options[0]
            rows.append((system, task, repeat, slot, strata[task]["family"], strata[task]["variant"]))
    out = pd.DataFrame(rows, columns=list(SAMPLE_COLUMNS))
    for column in ("system", "task_id", "family", "variant"):
        out[column] = out[column].astype(TEXT_DTYPE)
    out[["repeat", "slot"]] = out[["repeat", "slot"]].astype("int64")
    return out
