"""The inspect_ai task ``sgr_bench``: SGR-Bench's tasks as samples, the paper's prompt, tools and limits.

``inspect eval sgr_kit/sgr_bench --model <provider/model> -T tasks=<source>`` runs it (the task
is registered under the ``sgr_kit`` entry point of inspect_ai), and so does ``sgr-kit run``.

- **Dataset** (:func:`task_samples`): any task source :func:`sgr_kit.load_tasks` reads (release
  files, a folder, a Hugging Face dataset id; the release's dataset by default) or a loaded
  TaskSet; one sample per task: id = the task id, input = the task's instruction and output
  format as the release words them (:func:`task_input`), target = its reference answer,
  metadata = ``base_id``, ``variant``, ``domain``, ``start_url``, ``cardinality`` (rows of the
  reference), ``bin``, ``language``. ``variant`` keeps the constraint or goal tasks or both;
  ``epochs`` repeats each sample.
- **Prompt** (:func:`paper_prompt`, in the task's ``setup`` so that every agent gets it): the
  paper's (Appendix C, "Prompt template and controlled protocol": "the current date, the
  benchmark task instruction, and the required structured output schema. Prompts do not provide
  a start URL, and they instruct agents to solve the task through the designated search, fetch,
  and PDF tools while prohibiting alternative retrieval paths"), :data:`PROMPT_TEMPLATE`.
- **Agent**: inspect_ai's ReAct agent (:func:`paper_agent`) with the paper's three tools
  (``search``, ``fetch``, ``read_pdf``: :func:`sgr_kit.run.tools.paper_tools`) and
  ``submit(answer)``: the model ends by submitting its answer, which becomes the sample's output
  as it is. Instead: the tools of a user's MCP servers (``mcp``: a Claude Code style
  ``.mcp.json`` file), only those named in ``allowed_tools``; the CLI agents the paper ran
  (``agent="claude-code"`` or ``"codex-cli"``, :mod:`sgr_kit.run.agents`); or any inspect_ai
  solver or agent (``solver``, or inspect's own ``--solver``).
- **Limits** (:mod:`sgr_kit.run.limits`): the protocol profile's budget as the per-sample time
  limit, its stall limit as a watchdog in the ``setup``.
- **Scorer** (:mod:`sgr_kit.run.scorer`): ``sgr_bench``, with the scoring ``profile``.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from inspect_ai import Epochs, Task, task
from inspect_ai.agent import Agent, AgentPrompt, AgentSubmit, react
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.solver import Generate, Solver, TaskState, solver

from ..errors import SgrKitError, describe
from ..schema import VARIANTS
from ..types import Task as SgrTask
from .limits import run_limits, stall_limit
from .scorer import sgr_bench_scorer

__all__ = ["PROMPT_TEMPLATE", "SUBMIT_PROMPT", "PAPER_TOOLS", "AGENTS", "task_input", "task_samples", "paper_prompt",
           "paper_agent", "read_mcp_config", "sgr_bench"]  # fmt: skip

#: The prompt every agent receives (the paper's Appendix C): ``{date}`` is the day the sample
#: runs (UTC, ISO 8601), ``{task}`` the sample's input (instruction and output format).
PROMPT_TEMPLATE = (
    "Current date: {date}\n\n"
    "{task}\n\n"
    "Solve the task through the designated search, fetch and PDF tools only; no other way of retrieving "
    "information is allowed. Give the final answer alone, exactly in the required output format."
)
#: What the ReAct agent is told about its ``submit`` tool.
SUBMIT_PROMPT = "When you have the final answer, call the {submit}() tool with the answer alone."
#: The names of the paper's tools (Appendix C, "Exposed tools and runtime restrictions").
PAPER_TOOLS: tuple[str, ...] = ("search", "fetch", "read_pdf")
#: The agents ``agent`` names: inspect_ai's ReAct agent, and the CLI agents through inspect_swe.
AGENTS: tuple[str, ...] = ("react", "claude-code", "codex-cli")
_VARIANT_CHOICES = ("both", *VARIANTS)


def task_input(task: SgrTask) -> str:
    """A task's words for the model: its instruction, then its output format unless the instruction holds it.

    Examples
    --------
    >>> from sgr_kit.types import Schema, Task
    >>> t = Task("t_001", "t_001", "constraint", "NVD", "NVD", "vulnerability databases", Schema(("id",), ("id",)),
    ...          "a", 1, "1-2", instruction="List the CVEs.", output_format="Return id rows.")
    >>> task_input(t)
    'List the CVEs.\\n\\nReturn id rows.'
    """
    instruction, output_format = task.instruction.strip(), task.output_format.strip()
    if output_format and output_format not in instruction:
        return f"{instruction}\n\n{output_format}" if instruction else output_format
    return instruction


def _taskset(tasks: Any, language: str) -> Mapping[str, SgrTask]:
    if isinstance(tasks, Mapping):
        return tasks
    from ..load.release import DATASET_ID
    from ..prepare import load_tasks

    return load_tasks(DATASET_ID if tasks is None else tasks, language=language)


def task_samples(tasks: Any = None, *, variant: str = "both", language: str = "en") -> list[Sample]:
    """One inspect_ai ``Sample`` per task (see the module docstring), in the TaskSet's order.

    Parameters
    ----------
    tasks : TaskSet, mapping, task source or None
        None: the release (its Hugging Face dataset id).
    variant : {"both", "constraint", "goal"}
    language : {"en", "zh"}

    Returns
    -------
    list of inspect_ai.dataset.Sample

    Raises
    ------
    SgrKitError
        Tasks that do not load, an unknown variant, no task of the variant.
    """
    if variant not in _VARIANT_CHOICES:
        raise SgrKitError(f"variant: expected one of {', '.join(_VARIANT_CHOICES)}; found {variant!r}")
    table = _taskset(tasks, language)
    samples = []
    for t in table.values():
        if variant != "both" and t.variant != variant:
            continue
        samples.append(Sample(
            id=t.task_id, input=task_input(t), target=t.reference,
            metadata={"base_id": t.base_id, "variant": t.variant, "domain": t.domain, "start_url": t.start_url,
                      "cardinality": t.gold_rows, "bin": t.bin, "language": t.language},
        ))  # fmt: skip
    if not samples:
        raise SgrKitError(f"no {variant} task among the {len(table)} tasks loaded" if variant != "both"
                          else "no task loaded")  # fmt: skip
    return samples


@solver(name="sgr_kit/paper_prompt")
def paper_prompt(template: str = PROMPT_TEMPLATE, date: str | None = None) -> Solver:
    """The paper's prompt: the sample's input placed in ``template`` with the current date.

    Parameters
    ----------
    template : str
        With ``{date}`` and ``{task}`` (:data:`PROMPT_TEMPLATE`).
    date : str, optional
        The date to state (default: the day each sample runs, UTC, ``YYYY-MM-DD``).

    Returns
    -------
    inspect_ai.solver.Solver
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        today = date or _dt.datetime.now(_dt.timezone.utc).date().isoformat()
        state.user_prompt.text = template.replace("{date}", today).replace("{task}", state.user_prompt.text)
        return state

    return solve


def paper_agent(tools: Sequence[Any]) -> Agent:
    """inspect_ai's ReAct agent with ``tools`` and ``submit(answer)``, whose answer becomes the output as it is.

    The submit call stays in the conversation (so a log shows what was submitted); its system
    message says only how to submit (:data:`SUBMIT_PROMPT`): the task's words are the prompt's.

    Returns
    -------
    inspect_ai.agent.Agent
    """
    return react(
        prompt=AgentPrompt(instructions=None, handoff_prompt=None, assistant_prompt=SUBMIT_PROMPT),
        tools=list(tools),
        submit=AgentSubmit(answer_only=True, keep_in_messages=True),
    )


def read_mcp_config(path: str | os.PathLike, *, allowed_tools: Sequence[str] = PAPER_TOOLS) -> list[Any]:
    """The tools of the MCP servers a ``.mcp.json`` file names, only those in ``allowed_tools``.

    The file is Claude Code's project MCP configuration (the paper's "strict MCP configuration"):
    ``{"mcpServers": {name: {"command", "args", "env", "cwd"} | {"type": "http", "url", "headers"}}}``.

    Parameters
    ----------
    path : path
    allowed_tools : sequence of str
        Tool names (or globs) offered to the model; any other tool of the servers is never offered.

    Returns
    -------
    list of inspect_ai.tool.ToolSource

    Raises
    ------
    SgrKitError
        An unreadable file, no servers, a server without ``command`` or ``url``.
    """
    from inspect_ai.tool import mcp_server_http, mcp_server_sse, mcp_server_stdio, mcp_tools

    from ..errors import decode_json

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise SgrKitError(f"mcp {path}: cannot be read ({exc})") from None
    data, _ = decode_json(text, path)
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict) or not servers:
        raise SgrKitError(f"{path}: expected {{\"mcpServers\": {{name: {{\"command\": ...}}}}}} with at least one "
                          f"server")  # fmt: skip
    if isinstance(allowed_tools, str) or not allowed_tools:
        raise SgrKitError(f"allowed_tools: expected a list of tool names; found {allowed_tools!r}")
    sources = []
    for name, spec in servers.items():
        where = f"{path}: mcpServers.{name}"
        if not isinstance(spec, dict):
            raise SgrKitError(f"{where}: expected an object with command or url; found {type(spec).__name__}")
        if isinstance(spec.get("command"), str):
            args, env = spec.get("args", []), spec.get("env")
            if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
                raise SgrKitError(f"{where}.args: expected a list of strings; found {describe(args)}")
            if env is not None and (not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values())):
                raise SgrKitError(f"{where}.env: expected an object of strings; found {describe(env)}")
            server = mcp_server_stdio(name=name, command=spec["command"], args=args, env=env, cwd=spec.get("cwd"))
        elif isinstance(spec.get("url"), str):
            make = mcp_server_sse if spec.get("type") == "sse" else mcp_server_http
            server = make(name=name, url=spec["url"], headers=spec.get("headers"))
        else:
            raise SgrKitError(f"{where}: expected a command (stdio server) or a url (http server)")
        sources.append(mcp_tools(server, tools=list(allowed_tools)))
    return sources


def _as_list(value: Any, what: str) -> list[str]:
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",") if v.strip()]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v for v in value):
        raise SgrKitError(f"{what}: expected a list of names; found {describe(value)}")
    return list(value)


def _named_solver(name: str) -> Any:
    """The inspect_ai solver or agent registered as ``name`` (``-T solver=NAME``)."""
    from inspect_ai.util import registry_create

    for kind in ("solver", "agent"):
        try:
            return registry_create(kind, name)
        except LookupError:
            continue
    raise SgrKitError(f"solver: no inspect_ai solver or agent is registered as {name!r} (a package's, e.g. "
                      f"'package/name', is found once the package is installed)")  # fmt: skip


@task(name="sgr_bench")
def sgr_bench(
    tasks: Any = None,
    *,
    variant: str = "both",
    language: str = "en",
    protocol: Any = "paper",
    profile: str = "paper",
    search_url: str | None = None,
    agent: str = "react",
    solver: Solver | Agent | str | None = None,
    mcp: str | None = None,
    allowed_tools: Sequence[str] | str = PAPER_TOOLS,
    epochs: int = 1,
    sandbox: Any = None,
    date: str | None = None,
) -> Task:
    """SGR-Bench as an inspect_ai task, under the paper's protocol (see the module docstring).

    Parameters
    ----------
    tasks : task source, TaskSet or None
        Anything :func:`sgr_kit.load_tasks` reads (``-T tasks=PATH``), or a TaskSet. None: the
        release's Hugging Face dataset.
    variant : {"both", "constraint", "goal"}
    language : {"en", "zh"}
        The release's translation to read.
    protocol : "paper", "none", path, mapping
        The protocol profile whose budget and stall limit the run enforces (and that
        ``protocol_flags`` audits), :func:`sgr_kit.trajectories.protocol.read_protocol`.
    profile : {"paper", "strict"}
        The scoring profile.
    search_url : str, optional
        A Serper-compatible endpoint instead of Serper's (also ``SGR_SEARCH_URL``).
    agent : {"react", "claude-code", "codex-cli"}
        The ReAct agent with the paper's tools, or a CLI agent of the paper's in a Docker
        sandbox with the same tools over MCP (:mod:`sgr_kit.run.agents`).
    solver : Solver, Agent or str, optional
        Any inspect_ai solver or agent instead, or the registered name of one (``-T solver=NAME``):
        it gets the prompt and the limits, not the tools.
    mcp : path, optional
        A ``.mcp.json`` file: the ReAct agent gets its servers' tools named in ``allowed_tools``
        instead of the paper's tools.
    allowed_tools : list of str
        With ``mcp``, the tools offered to the model (default ``search, fetch, read_pdf``).
    epochs : int
        Runs of each sample (repeats), averaged per sample by the scores' mean.
    sandbox : str or tuple, optional
        The sandbox of a CLI agent (default ``"docker"``; ``"k8s"`` with inspect_k8s_sandbox).
    date : str, optional
        The date the prompt states (default: the day the sample runs).

    Returns
    -------
    inspect_ai.Task

    Raises
    ------
    SgrKitError
        Tasks that do not load, a bad option, a bad protocol profile; the search endpoint not
        ready (no key for Serper, an endpoint that does not answer) when the paper's tools are used.
    """
    if agent not in AGENTS:
        raise SgrKitError(f"agent: expected one of {', '.join(AGENTS)}; found {agent!r}")
    if isinstance(epochs, bool) or not isinstance(epochs, int) or epochs < 1:
        raise SgrKitError(f"epochs: expected a whole number >= 1; found {epochs!r}")
    limits = run_limits(protocol)
    table = _taskset(tasks, language)
    samples = task_samples(table, variant=variant, language=language)
    plan: Any = _named_solver(solver) if isinstance(solver, str) else solver
    if plan is None and agent != "react":
        from .agents import cli_agent

        plan = cli_agent(agent, search_url=search_url)
        sandbox = sandbox or "docker"
    elif plan is None:
        if mcp is not None:
            tools = read_mcp_config(mcp, allowed_tools=_as_list(allowed_tools, "allowed_tools"))
        else:
            from .tools import paper_tools
            from .web import check_search_ready

            check_search_ready(search_url)
            tools = paper_tools(search_url=search_url)
        plan = paper_agent(tools)
    return Task(
        dataset=MemoryDataset(samples, name="sgr_bench"),
        setup=[paper_prompt(date=date), stall_limit(limits.stall_seconds)],
        solver=plan,
        scorer=sgr_bench_scorer(table, profile=profile),
        epochs=Epochs(epochs, "mean"),
        time_limit=limits.time_limit,
        sandbox=sandbox,
        metadata={"protocol": limits.protocol, "budget_seconds": limits.time_limit,
                  "stall_seconds": limits.stall_seconds, "profile": profile, "variant": variant,
                  "language": language},  # fmt: skip
    )
