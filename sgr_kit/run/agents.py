"""The CLI agents the paper ran (Claude Code, Codex CLI), through inspect_swe, with the paper's tools over MCP.

The paper (Appendix C, "Exposed tools and runtime restrictions") ran its systems in Claude Code
under "a strict MCP configuration, so that only the designated search, fetch, and PDF tools are
available", with "a companion settings file [that] additionally disables the Claude-native
WebSearch and WebFetch tools", and GPT-5.5 in Codex CLI "aligned to the same evaluation
controls"; "All CLI-based systems are run at medium effort".

Here the CLIs run in a sandbox (Docker by default; Kubernetes with inspect_k8s_sandbox) through
inspect_swe's ``claude_code()`` and ``codex_cli()`` agents (``pip install 'sgr-kit[run]'``), and
the paper's three tools (:func:`sgr_kit.run.tools.paper_tools`) run on the host, offered to the
CLI as one MCP server named :data:`MCP_SERVER` (inspect_ai's bridged tools: the model sees
``mcp__sgr__search``, ``mcp__sgr__fetch``, ``mcp__sgr__read_pdf``), so the address guard and the
byte and time bounds hold whatever the sandbox is. Claude Code gets ``WebSearch`` and ``WebFetch``
disallowed (:data:`CLAUDE_DISALLOWED_TOOLS`); Codex CLI its web search disabled. Both at medium
effort. :func:`cli_agent_options` says exactly what each agent is given (the tests check it:
running the CLIs needs Docker and their downloads, so this path is not tested end to end).
"""

from __future__ import annotations

from typing import Any

from ..errors import SgrKitError

__all__ = ["MCP_SERVER", "CLAUDE_DISALLOWED_TOOLS", "CLI_AGENTS", "cli_agent_options", "cli_agent"]

#: The name of the MCP server that carries the paper's tools to a CLI agent.
MCP_SERVER = "sgr"
#: Claude Code's own web tools, disabled as the paper's settings file did.
CLAUDE_DISALLOWED_TOOLS: tuple[str, ...] = ("WebSearch", "WebFetch")
#: The CLI agents, by the name ``--agent`` takes.
CLI_AGENTS: tuple[str, ...] = ("claude-code", "codex-cli")


def cli_agent_options(agent: str, *, tools: list[Any]) -> dict[str, Any]:
    """The keyword arguments the inspect_swe agent ``agent`` is built with.

    Parameters
    ----------
    agent : {"claude-code", "codex-cli"}
    tools : list of inspect_ai.tool.Tool
        The tools to offer over MCP (the paper's three).

    Returns
    -------
    dict
        ``bridged_tools`` (one ``BridgedToolsSpec`` named :data:`MCP_SERVER`), and for
        Claude Code ``disallowed_tools`` and ``effort="medium"``; for Codex CLI
        ``web_search="disabled"`` and ``config_overrides`` setting the reasoning effort to medium.

    Raises
    ------
    SgrKitError
        An agent that is not one of :data:`CLI_AGENTS`.
    """
    from inspect_ai.agent import BridgedToolsSpec

    if agent not in CLI_AGENTS:
        raise SgrKitError(f"agent: expected one of {', '.join(CLI_AGENTS)}; found {agent!r}")
    bridged = [BridgedToolsSpec(name=MCP_SERVER, tools=list(tools))]
    if agent == "claude-code":
        return {"bridged_tools": bridged, "disallowed_tools": list(CLAUDE_DISALLOWED_TOOLS), "effort": "medium"}
    return {"bridged_tools": bridged, "web_search": "disabled",
            "config_overrides": {"model_reasoning_effort": "medium"}}  # fmt: skip


def cli_agent(agent: str, *, search_url: str | None = None, check: bool = True) -> Any:
    """The inspect_swe agent ``agent`` with the paper's tools (see the module docstring).

    Parameters
    ----------
    agent : {"claude-code", "codex-cli"}
    search_url : str, optional
        A Serper-compatible endpoint instead of Serper's.
    check : bool, default True
        Check that the search endpoint is ready first (:func:`sgr_kit.run.web.check_search_ready`).

    Returns
    -------
    inspect_ai.agent.Agent

    Raises
    ------
    SgrKitError
        inspect_swe missing, an unknown agent, the search endpoint not ready.
    """
    if agent not in CLI_AGENTS:
        raise SgrKitError(f"agent: expected one of {', '.join(CLI_AGENTS)}; found {agent!r}")
    try:
        import inspect_swe
    except ImportError:
        raise SgrKitError(f"--agent {agent} needs inspect_swe: pip install 'sgr-kit[run]'") from None
    from .tools import paper_tools
    from .web import check_search_ready

    if check:
        check_search_ready(search_url)
    options = cli_agent_options(agent, tools=paper_tools(search_url=search_url))
    make = inspect_swe.claude_code if agent == "claude-code" else inspect_swe.codex_cli
    return make(**options)
