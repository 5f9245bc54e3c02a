"""Which trajectories belong to which answers: runs that match no answer, answers without a run.

Effort, cost and the protocol audit set each answer's trajectory beside its score, by
``(system, task_id, repeat)``. A trajectory folder named otherwise than the system in the runs
(``Codex GPT-5.5/`` against ``codex-gpt55``), or a task id spelt otherwise, would silently
match nothing; :func:`match_trajectories` lists every such mismatch with the closest names, and
every system whose answers lack trajectories with their count. ``sgr-kit validate`` reports
the mismatches as errors; ``sgr-kit effort``, the report and the effort page as warnings
(:func:`warn_unmatched`).
"""

from __future__ import annotations

import difflib
import re
import warnings
from typing import Iterable

import pandas as pd

from ..errors import SgrKitError, closest
from ..text import visible_repr

__all__ = ["MATCH_COLUMNS", "MATCH_KINDS", "DIFFER_COLUMNS", "match_trajectories", "differing_answers",
           "closest_names", "warn_unmatched"]

#: Columns of :func:`match_trajectories`, in order.
MATCH_COLUMNS: tuple[str, ...] = ("kind", "system", "n", "examples", "closest", "message")
#: What a row of :func:`match_trajectories` says: trajectories of a system no answer has, of a task
#: (or a repeat) the system did not answer, and answers without a trajectory.
MATCH_KINDS: tuple[str, ...] = ("unknown_system", "unknown_task", "unknown_repeat", "no_trajectory")
#: Columns of :func:`differing_answers`, in order.
DIFFER_COLUMNS: tuple[str, ...] = ("system", "task_id", "repeat", "answer", "final_answer", "answer_source",
                                   "trajectory_source", "message")
_KEY = ["system", "task_id", "repeat"]
_SHOWN = 3


def _squash(name: str) -> str:
    return re.sub(r"[\W_]+", "", str(name).casefold())


def closest_names(name: str, known: Iterable[str], *, n: int = 3) -> list[str]:
    """The known names closest to ``name``, ignoring case, spaces and punctuation first (``Codex GPT-5.5`` ~ ``codex-gpt55``).

    Examples
    --------
    >>> closest_names("Codex GPT-5.5", ["codex-gpt55", "claude-opus", "kimi"])
    ['codex-gpt55']
    >>> closest_names("arxiv_01", ["arxiv_001", "census_001"])
    ['arxiv_001']
    """
    known = sorted({str(k) for k in known})
    squashed: dict[str, list[str]] = {}
    for k in known:
        squashed.setdefault(_squash(k), []).append(k)
    target = _squash(name)
    if target in squashed:
        return squashed[target][:n]
    found = [k for m in difflib.get_close_matches(target, list(squashed), n=n, cutoff=0.6) for k in squashed[m]]
    return (found or closest(name, known, n=n))[:n]


def _keys(frame: pd.DataFrame, what: str) -> pd.DataFrame:
    missing = [c for c in _KEY if c not in frame.columns]
    if missing:
        raise SgrKitError(f"{what} lacks column(s) {', '.join(missing)}; expected system, task_id, repeat")
    return pd.DataFrame({"system": frame["system"].astype(str), "task_id": frame["task_id"].astype(str),
                         "repeat": frame["repeat"].astype("int64")}).drop_duplicates()  # fmt: skip


def _listed(names: Iterable[str], total: int) -> str:
    names = [visible_repr(n) for n in names]
    return ", ".join(names) + (f" and {total - len(names)} more" if total > len(names) else "")


def match_trajectories(answers: pd.DataFrame, trajectories: pd.DataFrame) -> pd.DataFrame:
    """Every way the trajectories and the answers fail to match, one row per system and kind.

    Parameters
    ----------
    answers : DataFrame
        The answers (``system, task_id, repeat``): the scores table, or the runs read.
    trajectories : DataFrame
        The trajectories' keys (``system, task_id, repeat``): e.g. the usage table of
        :func:`~sgr_kit.trajectories.trajectory_usage`.

    Returns
    -------
    DataFrame
        Columns :data:`MATCH_COLUMNS`: ``kind`` (:data:`MATCH_KINDS`), ``system``, ``n`` (how many
        trajectories, or answers for ``no_trajectory``), ``examples`` (the first task ids),
        ``closest`` (the closest systems or task ids among the answers) and ``message`` (one
        sentence naming all of it). Empty when every trajectory has its answer and every answer
        its trajectory.

    Examples
    --------
    >>> answers = pd.DataFrame({"system": "codex-gpt55", "task_id": ["arxiv_001", "arxiv_002"], "repeat": 0})
    >>> runs = pd.DataFrame({"system": "Codex GPT-5.5", "task_id": ["arxiv_001", "arxiv_002"], "repeat": 0})
    >>> for message in match_trajectories(answers, runs)["message"]:
    ...     print(message)
    trajectories of system 'Codex GPT-5.5' (2 runs) match no system of the answers; closest: 'codex-gpt55'
    system 'codex-gpt55': 2 of 2 answers have no trajectory (their scores count; their effort is unknown)
    """
    left, right = _keys(answers, "answers"), _keys(trajectories, "trajectories")
    rows = []
    systems = list(dict.fromkeys(left["system"]))
    tasks = sorted(set(left["task_id"]))
    runs = right.merge(left.assign(_answer=True), on=_KEY, how="left")
    unmatched = runs[runs["_answer"].isna()]
    answered_tasks = set(zip(left["system"], left["task_id"]))
    for system, part in unmatched.groupby("system", sort=False):
        if system not in set(systems):
            near = closest_names(system, systems)
            hint = f"closest: {_listed(near, len(near))}" if near else f"the answers' systems: {_listed(systems[:5], len(systems))}"
            rows.append(("unknown_system", system, len(part), "", ", ".join(near),
                         f"trajectories of system {visible_repr(system)} ({len(part)} run{'s' * (len(part) > 1)}) "
                         f"match no system of the answers; {hint}"))  # fmt: skip
            continue
        task_known = [(system, t) in answered_tasks for t in part["task_id"]]
        other_task = part[[not k for k in task_known]]
        other_repeat = part[task_known]
        if len(other_task):
            ids = list(dict.fromkeys(other_task["task_id"]))
            near = closest_names(ids[0], tasks)
            rows.append(("unknown_task", system, len(other_task), ", ".join(ids[:_SHOWN]), ", ".join(near),
                         f"system {visible_repr(system)}: {len(other_task)} trajectories of tasks it has no answer to "
                         f"({_listed(ids[:_SHOWN], len(ids))})"
                         + (f"; closest task ids to {visible_repr(ids[0])}: {_listed(near, len(near))}" if near else "")))
        if len(other_repeat):
            ids = list(dict.fromkeys(f"{t} repeat {r}" for t, r in zip(other_repeat["task_id"], other_repeat["repeat"])))
            rows.append(("unknown_repeat", system, len(other_repeat), ", ".join(ids[:_SHOWN]), "",
                         f"system {visible_repr(system)}: {len(other_repeat)} trajectories of a repeat it has no answer "
                         f"to ({_listed(ids[:_SHOWN], len(ids))})"))  # fmt: skip
    have = left.merge(right.assign(_run=True), on=_KEY, how="left")
    for system in systems:
        part = have[have["system"] == system]
        lacking = part[part["_run"].isna()]
        if len(lacking):
            ids = list(dict.fromkeys(lacking["task_id"]))
            rows.append(("no_trajectory", system, len(lacking), ", ".join(ids[:_SHOWN]), "",
                         f"system {visible_repr(system)}: {len(lacking)} of {len(part)} answers have no trajectory "
                         f"(their scores count; their effort is unknown)"))  # fmt: skip
    out = pd.DataFrame(rows, columns=list(MATCH_COLUMNS))
    return out.astype({"n": "int64"})


def warn_unmatched(found: pd.DataFrame, *, answers: bool = True) -> list[str]:
    """Warn (``UserWarning``) once per row of :func:`match_trajectories`; return the messages.

    ``answers=False`` leaves out the ``no_trajectory`` rows (answers without a trajectory, said
    elsewhere, e.g. on the effort page beside the system's numbers).
    """
    messages = [m for k, m in zip(found["kind"], found["message"]) if answers or k != "no_trajectory"]
    for message in messages:
        warnings.warn(message, UserWarning, stacklevel=2)
    return messages


def _same_answer(a: str | None, b: str | None) -> bool:
    def norm(text: str | None) -> str:
        return "" if text is None else "\n".join(line.rstrip() for line in str(text).replace("\r\n", "\n").strip().split("\n"))

    return norm(a) == norm(b)


def _short(text: str | None) -> str:
    if text is None:
        return "none"
    return visible_repr(text[:60] + ("…" if len(text) > 60 else ""))


def differing_answers(answers: Iterable, trajectories: Iterable) -> pd.DataFrame:
    """The answers that differ from the final answer of their trajectory (same system, task and repeat).

    Two answers are the same when equal after trimming the ends of the text and of each line
    (Windows line ends read as plain ones); a trajectory without a final answer differs from any
    non-empty answer. Answers without a trajectory, and trajectories without an answer, are
    :func:`match_trajectories`' business, not listed here.

    Parameters
    ----------
    answers : iterable of Answer
        The runs read (:func:`sgr_kit.load.read_runs`): ``system, task_id, repeat, text, source``.
    trajectories : iterable of Trajectory
        The trajectories read (:func:`~sgr_kit.trajectories.source.read_trajectories`).

    Returns
    -------
    DataFrame
        Columns :data:`DIFFER_COLUMNS`, one row per differing answer, in the order of the answers.

    Examples
    --------
    >>> from sgr_kit.types import Answer
    >>> from sgr_kit.trajectories.steps import Step, Trajectory
    >>> runs = [Answer("s", "t_001", 0, "id|n\\nA|1", "runs.jsonl:1"), Answer("s", "t_002", 0, "x", "runs.jsonl:2")]
    >>> trs = [Trajectory("s", "t_001", 0, (Step("answer", text="id|n\\nA|2"),), "t.jsonl:1"),
    ...        Trajectory("s", "t_002", 0, (Step("answer", text="x "),), "t.jsonl:2")]
    >>> print(differing_answers(runs, trs)["message"].iloc[0])
    system 's', task t_001, repeat 0: the answer at runs.jsonl:1 differs from the trajectory's final answer at t.jsonl:1 \
('id|n\\nA|1' against 'id|n\\nA|2')
    """
    finals = {(tr.system, tr.task_id, tr.repeat): (tr.answer, tr.source) for tr in trajectories}
    rows = []
    for answer in answers:
        key = (answer.system, answer.task_id, answer.repeat)
        if key not in finals:
            continue
        final, where = finals[key]
        if _same_answer(answer.text, final):
            continue
        rows.append((*key, answer.text, final, answer.source, where,
                     f"system {visible_repr(key[0])}, task {key[1]}, repeat {key[2]}: the answer at {answer.source} "
                     f"differs from the trajectory's final answer at {where} ({_short(answer.text)} against "
                     f"{_short(final)})"))  # fmt: skip
    return pd.DataFrame(rows, columns=list(DIFFER_COLUMNS)).astype({"repeat": "int64"})
