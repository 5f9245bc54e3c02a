"""Agents' trajectories: read them into a tidy steps table, and measure where the site was reached.

- :mod:`.read`: :func:`load_trajectories` (the steps table, :mod:`.table`), :func:`iter_trajectories`
  (one :class:`Trajectory` at a time, streamed), :func:`trajectory_answers` (the final answers,
  which :func:`sgr_kit.load.load_runs` reads from a trajectories source); where trajectories sit
  (:mod:`.layout`), one file (:mod:`.files`), the registry of formats told by content
  (:mod:`.formats`), records and their lines (:mod:`.records`), the notes of a read
  (:mod:`.notes`);
- :mod:`.steps`: the documented step format, and how a tool call becomes a step;
- one module per agent's format (:mod:`.agents` holds what they share): Claude Code
  (:mod:`.claude`), Codex CLI (:mod:`.codex`), OpenAI Responses API items and chat messages
  (:mod:`.openai_api`), Gemini CLI (:mod:`.gemini`), Harbor (:mod:`.harbor`), inspect_ai
  (:mod:`.inspect_log`);
- :mod:`.usage`: :func:`trajectory_usage` (one row per trajectory: tool calls, tokens, cost,
  seconds as the agent reports them, costs priced from a price file where the agent reports
  none) and :func:`tool_kind_sources` (which tools the name rule alone classified);
- :mod:`.cost`: price files (:func:`read_prices`) and a usage table's costs with their source;
- :mod:`.protocol`: :func:`protocol_flags`, whether each run kept the protocol;
- :mod:`.hosts`: hosts of URLs and a task's site (:func:`task_sites`);
- :mod:`.reach`: :func:`site_reach`, one row per answer.

The step kinds (:data:`sgr_kit.schema.STEP_KINDS`) and the tables' columns
(:data:`sgr_kit.schema.STEP_COLUMNS`, :data:`sgr_kit.schema.SITE_REACH_COLUMNS`) are defined in
:mod:`sgr_kit.schema`.
"""

from __future__ import annotations

from ..schema import SITE_REACH_COLUMNS, STEP_COLUMNS, STEP_KINDS
from .hosts import host_of, on_site, task_sites, url_list
from .reach import reach_columns, site_reach
from .read import (FORMATS, TrajectoryFormat, TrajectoryNote, is_trajectory_source, iter_trajectories,
                   load_trajectories, register_format, steps_frame, trajectory_answers)
from .steps import EXCERPT_CHARS, KNOWN_TOOLS, Step, Trajectory, classify_tool, kind_of_tool, tool_step
from .cost import read_prices
from .protocol import protocol_flags
from .usage import read_tool_kinds, tool_kind_sources, trajectory_usage

__all__ = [
    "STEP_KINDS", "STEP_COLUMNS", "SITE_REACH_COLUMNS", "EXCERPT_CHARS", "Step", "Trajectory",
    "load_trajectories", "iter_trajectories", "trajectory_answers", "is_trajectory_source", "steps_frame",
    "site_reach", "reach_columns", "host_of", "on_site", "task_sites", "url_list", "kind_of_tool", "tool_step",
    "classify_tool", "KNOWN_TOOLS", "FORMATS", "TrajectoryFormat", "TrajectoryNote", "register_format",
    "trajectory_usage", "tool_kind_sources", "read_tool_kinds", "read_prices", "protocol_flags",
]  # fmt: skip
