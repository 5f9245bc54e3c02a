"""The protocol as limits: what a run may spend, enforced by inspect_ai, recorded in its log.

One definition serves the run and the audit: the protocol profile
(:func:`sgr_kit.trajectories.protocol.read_protocol`, ``"paper"`` by default) that
:func:`~sgr_kit.trajectories.protocol.protocol_flags` checks a run against. The paper's
(Appendix C, "Execution budget and task isolation"): "The maximum runtime per task is 6000
seconds; runs are marked as stalled after 3000 seconds without trace progress".

- **Budget**: ``budget_seconds`` becomes inspect_ai's per-sample ``time_limit`` (wall clock,
  whole seconds: a fraction is rounded up). When it fires, inspect_ai cancels the sample,
  scores what it has, and its log records ``EvalSample.limit`` of type ``time``.
- **Stall**: ``stall_seconds`` is enforced by :func:`stall_limit`, a solver that starts a
  watchdog in the background of the sample. The watchdog looks at the sample's transcript
  (its count of events and which of them are still pending) every
  :func:`poll_seconds`; when nothing has changed for ``stall_seconds`` (no model call began
  or ended, no tool call began or ended: a tool call that hangs is no progress) it raises
  inspect_ai's ``LimitExceededError`` of type ``custom`` whose message starts with
  :data:`~sgr_kit.trajectories.inspect_log.STALL_REASON`. inspect_ai ends the sample, scores
  it, and records ``EvalSample.limit`` (``custom``, the stall limit, that message), which the
  log reader reports as a ``stall`` and :func:`~sgr_kit.trajectories.protocol.protocol_flags`
  as ``stalled``.
- **Isolation**: every sample is its own conversation (inspect_ai's own behaviour: a sample
  starts from its input alone).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import anyio
from inspect_ai.log import transcript
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import LimitExceededError, background

from ..trajectories.inspect_log import STALL_REASON
from ..trajectories.protocol import Protocol, read_protocol

__all__ = ["RunLimits", "run_limits", "poll_seconds", "stall_message", "stall_limit"]


@dataclass(frozen=True)
class RunLimits:
    """The limits a run enforces, from a protocol profile.

    Attributes
    ----------
    protocol : str
        The profile's name (``paper``, ``none``, a file's stem, ``custom``).
    time_limit : int or None
        inspect_ai's per-sample time limit in whole seconds (the budget rounded up); None: none.
    stall_seconds : float or None
        Longest stretch without trace progress before the sample is ended; None: not enforced.
    source : str
        Where the values come from.
    """

    protocol: str
    time_limit: int | None
    stall_seconds: float | None
    source: str = ""


def run_limits(protocol: Any = "paper") -> RunLimits:
    """The limits of the protocol profile ``protocol`` (see :func:`~sgr_kit.trajectories.protocol.read_protocol`).

    Examples
    --------
    >>> limits = run_limits("paper")
    >>> limits.time_limit, limits.stall_seconds
    (6000, 3000.0)
    >>> run_limits({"budget_seconds": 2.5, "stall_seconds": None})
    RunLimits(protocol='custom', time_limit=3, stall_seconds=None, source="protocol (over the paper's profile)")
    >>> run_limits("none")
    RunLimits(protocol='none', time_limit=None, stall_seconds=None, source='no protocol')
    """
    profile: Protocol | None = read_protocol(protocol)
    if profile is None:
        return RunLimits("none", None, None, "no protocol")
    budget = profile.budget_seconds
    return RunLimits(profile.name, None if budget is None else max(1, math.ceil(budget)), profile.stall_seconds,
                     profile.source)  # fmt: skip


def poll_seconds(stall_seconds: float) -> float:
    """How often the watchdog looks at the trace: every 5 s (the paper's polling), more often for short limits.

    Examples
    --------
    >>> poll_seconds(3000), poll_seconds(1)
    (5.0, 0.05)
    """
    return float(min(5.0, max(stall_seconds / 20, 0.01)))


def stall_message(idle: float, limit: float) -> str:
    """The reason recorded for a sample the stall limit ended.

    Examples
    --------
    >>> stall_message(3004.2, 3000)
    'Stall limit exceeded: no trace progress for 3,004 s (stall limit 3,000 s)'
    """
    return f"{STALL_REASON}: no trace progress for {idle:,.0f} s (stall limit {limit:,.0f} s)"


def _progress() -> tuple:
    """What has happened in the current sample's trace: its event count and its pending events."""
    current = transcript()
    return current.history.event_count, tuple(id(e) for e in current.pending_events)


async def _watch(stall_seconds: float, interval: float) -> None:
    seen, since = _progress(), anyio.current_time()
    while True:
        await anyio.sleep(interval)
        now, progress = anyio.current_time(), _progress()
        if progress != seen:
            seen, since = progress, now
            continue
        idle = now - since
        if idle >= stall_seconds:
            raise LimitExceededError("custom", value=idle, limit=stall_seconds,
                                     message=stall_message(idle, stall_seconds))  # fmt: skip


@solver(name="sgr_kit/stall_limit")
def stall_limit(stall_seconds: float | None = None) -> Solver:
    """A solver that ends the sample when its trace makes no progress for ``stall_seconds``.

    Put it in the task's ``setup`` (so it also guards a solver given on the command line).
    With ``stall_seconds=None`` it does nothing.

    Parameters
    ----------
    stall_seconds : float or None
        Seconds without trace progress (no event added, no pending event finished).

    Returns
    -------
    inspect_ai.solver.Solver
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if stall_seconds is not None:
            background(_watch, float(stall_seconds), poll_seconds(float(stall_seconds)))
        return state

    return solve
