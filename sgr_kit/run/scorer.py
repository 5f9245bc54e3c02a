"""The inspect_ai scorer ``sgr_bench``: each submitted answer scored by sgr-kit, averaged over base problems.

Each sample's answer (:func:`sample_answer`) is, for an agent that has a ``submit`` tool (the
task's ReAct agent), what the model last passed to ``submit(answer)``: a sample that ended (by a
limit, or by giving up) without submitting has no answer (status ``missing``), whatever the
model wrote last. For an agent or solver without one it is the eval's final output
(``state.output.completion``). A blank answer is no answer. It is scored by
:func:`sgr_kit.score.score_answer` against the task (profile ``paper`` or ``strict``, as
``sgr-kit score --profile``).

- The score's value is a dict ``{"item_f1", "row_f1", "poa"}`` of fractions in [0, 1], the
  numbers of the scores table. A ``parse_failure`` or ``missing`` answer scores 0 on each
  (the paper's averages count them as 0; ``sgr-kit score`` leaves them NaN and the failure
  policy ``zero`` makes them 0); a ``scorer_error`` (sgr-kit's fault, never the answer's) is
  NaN, which inspect_ai leaves unscored.
- Its metadata holds the ``status``, the ``reason`` of a failed answer, the parse ``issues``,
  the counts of the metrics (``correct_fields``, ``gold_fields``, ``pred_fields``,
  ``correct_rows``, ``gold_rows``, ``pred_rows``, ``shared_keys``, ``correct_pairs``,
  ``pairs``), where the points went (``lost``: cells by verdict: ``wrong``, ``missing``,
  ``omitted_row``, ``extra_row``, ``duplicate_row``, ``extra_cell``), the ``profile`` and
  the task's ``base_id`` and ``variant``.
- Metrics: :func:`base_mean` (each base problem's tasks and epochs averaged first, then the
  base problems: the paper's "average across all tasks" when every base has both variants)
  and :func:`variant_mean` (the mean of each variant).
"""

from __future__ import annotations

import functools
import math
from collections import Counter, defaultdict
from typing import Any, Mapping

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from ..errors import SgrKitError
from ..schema import FAILED_STATUSES, METRICS, UNSCORED_STATUSES, check_profile
from ..score import PreparedTask, ScoreResult, prepare_task, score_answer
from ..types import Task

__all__ = ["LOST_VERDICTS", "ANSWER_SOURCES", "sgr_bench_scorer", "sample_answer", "score_value", "score_metadata",
           "base_mean", "variant_mean"]  # fmt: skip

#: The cell verdicts that lose points, as counted in a score's ``lost`` metadata.
LOST_VERDICTS: tuple[str, ...] = ("wrong", "missing", "omitted_row", "extra_row", "duplicate_row", "extra_cell")
_COUNTS = ("correct_fields", "gold_fields", "pred_fields", "correct_rows", "gold_rows", "pred_rows", "shared_keys",
           "correct_pairs", "pairs")  # fmt: skip


#: Where a sample's answer is taken from: ``auto`` (``submit`` when the model was offered a
#: ``submit`` tool, else ``output``), the last ``submit`` call, or the final output.
ANSWER_SOURCES: tuple[str, ...] = ("auto", "submit", "output")


def _offered_submit() -> bool:
    """Was the model's last call in this sample offered a tool named ``submit``?"""
    from inspect_ai.event import ModelEvent
    from inspect_ai.log import transcript

    for event in reversed(transcript().history.events_since_last(ModelEvent)):
        if isinstance(event, ModelEvent):
            return any(getattr(t, "name", None) == "submit" for t in event.tools)
    return False


def sample_answer(state: TaskState, *, answer: str = "auto") -> str | None:
    """A sample's answer: the last successful ``submit`` call's, or the final output (None: no answer).

    Parameters
    ----------
    state : inspect_ai.solver.TaskState
    answer : {"auto", "submit", "output"}
        ``submit``: the text the last ``submit`` tool call without an error returned (the
        ReAct agent's submission, kept in the conversation); ``output``:
        ``state.output.completion``; ``auto``: ``submit`` when the model was offered a ``submit``
        tool (read from the sample's transcript), else ``output``.

    Returns
    -------
    str or None
        None when there is none, or it is blank.
    """
    if answer == "auto":
        answer = "submit" if _offered_submit() else "output"
    if answer == "submit":
        calls = [m for m in state.messages if m.role == "tool" and getattr(m, "function", None) == "submit"
                 and getattr(m, "error", None) is None]  # fmt: skip
        text = calls[-1].text if calls else None
    else:
        text = state.output.completion if state.output is not None else None
    return text if text is not None and text.strip() else None


def score_value(result: ScoreResult) -> dict[str, float]:
    """The score's value: the three metrics, 0 for a failed answer, NaN for a scorer error.

    Examples
    --------
    >>> from sgr_kit.types import Schema, Task
    >>> task = Task("t_001", "t_001", "constraint", "NVD", "NVD", "vulnerability databases",
    ...             Schema(("id", "v"), ("id",)), "a|1\\nb|2", 2, "1-2")
    >>> score_value(score_answer(task, "a|1\\nb|3"))
    {'item_f1': 0.75, 'row_f1': 0.5, 'poa': 1.0}
    >>> score_value(score_answer(task, None))
    {'item_f1': 0.0, 'row_f1': 0.0, 'poa': 0.0}
    """
    if result.status in UNSCORED_STATUSES:
        return dict.fromkeys(METRICS, math.nan)
    if result.status in FAILED_STATUSES:
        return dict.fromkeys(METRICS, 0.0)
    return {m: float(getattr(result, m)) for m in METRICS}


def score_metadata(result: ScoreResult, task: Task, *, profile: str) -> dict[str, Any]:
    """The score's metadata: status, reason, issues, counts, lost cells by verdict, profile, base and variant.

    Examples
    --------
    >>> from sgr_kit.types import Schema, Task
    >>> task = Task("t_001", "t_001", "constraint", "NVD", "NVD", "vulnerability databases",
    ...             Schema(("id", "v"), ("id",)), "a|1\\nb|2", 2, "1-2")
    >>> meta = score_metadata(score_answer(task, "a|1\\nb|3"), task, profile="paper")
    >>> meta["status"], meta["lost"]
    ('parsed', {'wrong': 1})
    """
    lost = Counter(c.verdict for c in result.cells if c.verdict in LOST_VERDICTS)
    return {
        "status": result.status,
        "reason": result.reason,
        "issues": list(result.issues),
        **{k: int(getattr(result, k)) for k in _COUNTS},
        "lost": {v: lost[v] for v in LOST_VERDICTS if lost[v]},
        "profile": profile,
        "base_id": task.base_id,
        "variant": task.variant,
    }


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def _finite(score: SampleScore) -> float | None:
    try:
        value = score.score.as_float()
    except (ValueError, TypeError):
        return None
    return value if math.isfinite(value) else None


def base_mean() -> Metric:
    """Mean over base problems: each base problem's tasks (and their epochs) averaged first.

    A sample's base problem is its metadata's ``base_id`` (its id when absent).

    Returns
    -------
    inspect_ai.scorer.Metric
    """

    def compute(scores: list[SampleScore]) -> float:
        bases: dict[str, list[float]] = defaultdict(list)
        for s in scores:
            value = _finite(s)
            if value is not None:
                bases[str((s.sample_metadata or {}).get("base_id", s.sample_id))].append(value)
        return _mean([_mean(v) for v in bases.values()])

    return compute


def variant_mean() -> Metric:
    """Mean of each variant (``constraint``, ``goal``) over the base problems that have it.

    Returns
    -------
    inspect_ai.scorer.Metric
    """

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        out = {}
        for variant in ("constraint", "goal"):
            mine = [s for s in scores if (s.sample_metadata or {}).get("variant") == variant]
            if mine:
                out[variant] = base_mean()(mine)
        return out

    return compute


def _registered_metric(function: Any, name: str) -> Any:
    """``function`` registered as the inspect_ai metric ``name``, keeping its name and docstring."""
    wrapper = metric(name=name)(function)
    functools.update_wrapper(wrapper, function, updated=())
    return wrapper


base_mean = _registered_metric(base_mean, "base_mean")
variant_mean = _registered_metric(variant_mean, "variant_mean")


def _task_map(tasks: Any, language: str) -> Mapping[str, Task]:
    if isinstance(tasks, Mapping):
        return tasks
    from ..prepare import load_tasks

    return load_tasks(tasks, language=language)


@scorer(name="sgr_bench", metrics={m: [base_mean(), variant_mean()] for m in METRICS})
def sgr_bench_scorer(tasks: Any = None, *, profile: str = "paper", language: str = "en",
                     answer: str = "auto") -> Scorer:
    """Score each sample's answer with sgr-kit (registered as the inspect_ai scorer ``sgr_bench``).

    Parameters
    ----------
    tasks : TaskSet, mapping of task id to Task, or a task source
        The tasks the samples' ids name; a source (path, folder, dataset id) is read with
        :func:`sgr_kit.load_tasks`. None: the release's dataset id.
    profile : {"paper", "strict"}, default "paper"
        The scoring profile (:func:`sgr_kit.score_answer`).
    language : {"en", "zh"}, default "en"
        The translation to read when ``tasks`` is a source.
    answer : {"auto", "submit", "output"}, default "auto"
        Where each sample's answer is taken from (:func:`sample_answer`).

    Returns
    -------
    inspect_ai.scorer.Scorer
        Its score: value ``{"item_f1", "row_f1", "poa"}``, answer, explanation (the status and
        reason) and metadata (see the module docstring).
    """
    check_profile(profile)
    if answer not in ANSWER_SOURCES:
        raise SgrKitError(f"answer: expected one of {', '.join(ANSWER_SOURCES)}; found {answer!r}")
    if tasks is None:
        from ..load.release import DATASET_ID

        tasks = DATASET_ID
    table = _task_map(tasks, language)
    prepared: dict[str, PreparedTask] = {}

    async def score(state: TaskState, target: Target) -> Score:
        task_id = str(state.sample_id)
        if task_id not in table:
            raise SgrKitError(f"sample {task_id!r}: not a task of the scorer's {len(table)} tasks")
        if task_id not in prepared:
            prepared[task_id] = prepare_task(table[task_id], profile=profile)
        text = sample_answer(state, answer=answer)
        result = score_answer(prepared[task_id], text)
        explanation = result.status + (f": {result.reason}" if result.reason else "")
        return Score(value=score_value(result), answer=text, explanation=explanation,
                     metadata=score_metadata(result, table[task_id], profile=profile))  # fmt: skip

    return score
