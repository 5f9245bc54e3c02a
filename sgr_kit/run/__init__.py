"""Run SGR-Bench under the paper's protocol, on inspect_ai.

- :mod:`.task`: the inspect_ai task :func:`sgr_bench` (dataset, the paper's prompt, the ReAct
  agent, limits, scorer), registered so that ``inspect eval sgr_kit/sgr_bench`` finds it;
- :mod:`.tools`: the paper's three tools ``search``, ``fetch``, ``read_pdf`` over :mod:`.web`
  (a Serper-compatible search and a guarded, bounded web client); :mod:`.mcp_server`, the same
  tools as an MCP server (``sgr-kit mcp``);
- :mod:`.limits`: the protocol's budget and stall limit as inspect_ai limits, recorded in the log;
- :mod:`.scorer`: the scorer ``sgr_bench`` over :func:`sgr_kit.score_answer`;
- :mod:`.agents`: the paper's CLI agents (Claude Code, Codex CLI) through inspect_swe;
- :mod:`.cli`: ``sgr-kit run``, over ``inspect_ai.eval_set``.

Needs the extras ``inspect`` and ``run`` (``pip install 'sgr-kit[inspect,run]'``). Names are
imported on first use, so that ``sgr-kit``'s other commands never import inspect_ai.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "sgr_bench": "sgr_kit.run.task",
    "sgr_bench_scorer": "sgr_kit.run.scorer",
    "paper_tools": "sgr_kit.run.tools",
    "search": "sgr_kit.run.tools",
    "fetch": "sgr_kit.run.tools",
    "read_pdf": "sgr_kit.run.tools",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'sgr_kit.run' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
