"""``sgr-kit run``: the benchmark for one or more models as one inspect_ai eval set, then (``--report``) its report.

:func:`run_benchmark` checks everything a run needs before any sample runs (:func:`preflight`:
the models, the tasks, the protocol profile, the search endpoint or the MCP servers), then runs
the task ``sgr_kit/sgr_bench`` for every model with ``inspect_ai.eval_set``: its logs go to one
folder, samples that fail are retried, and running the same command again over the same folder
finishes only what is missing or failed (eval-set resumption: samples already done are kept).
The log folder is what ``sgr-kit report --runs LOGS --trajectories LOGS`` and the loaders read,
with no conversion; ``--report DIR`` builds that report at the end.

This module imports inspect_ai only inside its functions, so ``sgr-kit``'s other commands
never need it.
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path
from typing import Any, Callable, Sequence

from ..arguments import whole_number
from ..errors import SgrKitError

__all__ = ["TASK_NAME", "preflight", "run_benchmark", "add_run_command", "run_command"]

#: The registered name of the task ``sgr-kit run`` evaluates (as installed; where inspect_ai registered it without the package prefix, ``sgr_bench``).
TASK_NAME = "sgr_kit/sgr_bench"
_MARKUP = re.compile(r"\[/?(bold|b|italic|i|red|yellow|green|blue)\]")


def _plain(message: str) -> str:
    return " ".join(_MARKUP.sub("", message).split())


def _models(models: Sequence[Any]) -> list[Any]:
    """Each model, made by inspect_ai (which knows its provider and needs its key): a clear error otherwise."""
    from inspect_ai.model import Model, get_model

    if not models:
        raise SgrKitError("run: give at least one --model (provider/model, e.g. openai/gpt-5.5)")
    made = []
    for model in models:
        if isinstance(model, Model):
            made.append(model)
            continue
        try:
            made.append(get_model(str(model)))
        except Exception as exc:  # noqa: BLE001 - inspect_ai and the providers raise their own errors
            raise SgrKitError(f"model {model!r}: {_plain(str(exc)) or type(exc).__name__}") from None
    return made


def _check_mcp(path: Any, allowed_tools: Sequence[str]) -> None:
    """Start the MCP servers of ``path`` once and list their tools: one that does not start is an error now."""
    import anyio
    from inspect_ai.tool import mcp_connection

    from .task import read_mcp_config

    sources = read_mcp_config(path, allowed_tools=allowed_tools)

    async def check() -> None:
        try:
            async with mcp_connection(sources):
                for source in sources:
                    await source.tools()
        except Exception as exc:  # noqa: BLE001 - an MCP server fails in its own ways
            raise SgrKitError(f"mcp {path}: a server did not start or list its tools "
                              f"({_plain(str(exc)) or type(exc).__name__})") from None  # fmt: skip

    anyio.run(check)


def preflight(
    models: Sequence[Any],
    tasks: Sequence[Any],
    *,
    variant: str = "both",
    language: str = "en",
    protocol: Any = "paper",
    search_url: str | None = None,
    agent: str = "react",
    mcp: Any = None,
    allowed_tools: Sequence[str] | None = None,
) -> tuple[list[Any], Any]:
    """Check, before any sample runs, what a run needs; return the models and the tasks.

    Raises
    ------
    SgrKitError
        An unknown model or provider, a provider whose key or package is missing, tasks that do
        not load (or none of ``variant``), a bad protocol profile, an unknown agent, the search
        endpoint not ready (no ``SERPER_API_KEY`` for Serper, an endpoint that does not answer),
        an MCP server that does not start.
    """
    from ..prepare import load_tasks
    from .limits import run_limits
    from .task import AGENTS, PAPER_TOOLS, task_samples

    if agent not in AGENTS:
        raise SgrKitError(f"agent: expected one of {', '.join(AGENTS)}; found {agent!r}")
    run_limits(protocol)
    made = _models(models)
    if not tasks:
        raise SgrKitError("run: give --tasks (release files, a folder or a Hugging Face dataset id)")
    table = load_tasks(*tasks, language=language)
    task_samples(table, variant=variant, language=language)
    if mcp is not None and agent == "react":
        _check_mcp(mcp, list(allowed_tools or PAPER_TOOLS))
    else:
        from .web import check_search_ready

        check_search_ready(search_url)
    return made, table


def _task_name() -> str:
    """The name inspect_ai registered the task under: :data:`TASK_NAME`, or ``sgr_bench`` when inspect_ai
    takes sgr-kit for a local folder rather than an installed package (run from a checkout's root)."""
    from inspect_ai.util import registry_info

    from .task import sgr_bench

    return registry_info(sgr_bench).name


def _source(item: Any) -> str:
    """A task source as the task's argument: an existing path made absolute (so a rerun elsewhere matches)."""
    text = os.fspath(item)
    return str(Path(text).resolve()) if Path(text).exists() else text


def run_benchmark(
    models: Sequence[Any],
    tasks: Sequence[Any],
    log_dir: str | os.PathLike,
    *,
    variant: str = "both",
    language: str = "en",
    protocol: Any = "paper",
    profile: str = "paper",
    search_url: str | None = None,
    agent: str = "react",
    mcp: Any = None,
    allowed_tools: Sequence[str] | None = None,
    epochs: int = 1,
    max_connections: int | None = None,
    max_samples: int | None = None,
    retry_attempts: int | None = None,
    sandbox: str | None = None,
    display: str | None = None,
    log: Callable[[str], None] | None = None,
) -> tuple[bool, list[Any]]:
    """Run SGR-Bench for every model as one inspect_ai eval set whose logs go to ``log_dir``.

    Parameters
    ----------
    models : list of str or inspect_ai Model
        ``provider/model`` names (e.g. ``openai/gpt-5.5``) or models.
    tasks : list of task sources
        What :func:`sgr_kit.load_tasks` reads.
    log_dir : path
        The eval set's log folder; the same folder again resumes it.
    variant, language, protocol, profile, search_url, agent, mcp, allowed_tools, epochs, sandbox
        As for :func:`sgr_kit.run.task.sgr_bench`.
    max_connections, max_samples, retry_attempts, display
        inspect_ai's options of the same names (concurrent model connections, samples run at
        once, retries of a task with failed samples, progress display).
    log : callable, optional
        Called with a line saying what runs.

    Returns
    -------
    success : bool
        True when every sample of every model has finished.
    logs : list of inspect_ai.log.EvalLog
        The eval set's logs (headers).

    Raises
    ------
    SgrKitError
        See :func:`preflight`; nothing has run then.
    """
    from inspect_ai import eval_set

    if isinstance(epochs, bool) or not isinstance(epochs, int) or epochs < 1:
        raise SgrKitError(f"epochs: expected a whole number >= 1; found {epochs!r}")
    made, table = preflight(models, tasks, variant=variant, language=language, protocol=protocol,
                            search_url=search_url, agent=agent, mcp=mcp, allowed_tools=allowed_tools)  # fmt: skip
    args: dict[str, Any] = {"tasks": [_source(t) for t in tasks], "variant": variant, "language": language,
                            "protocol": os.fspath(protocol) if isinstance(protocol, os.PathLike) else protocol,
                            "profile": profile, "agent": agent, "epochs": epochs}  # fmt: skip
    if isinstance(args["protocol"], str) and Path(args["protocol"]).is_file():
        args["protocol"] = str(Path(args["protocol"]).resolve())
    for key, value in (("search_url", search_url), ("sandbox", sandbox)):
        if value is not None:
            args[key] = value
    if mcp is not None:
        args["mcp"], args["allowed_tools"] = str(Path(mcp).resolve()), list(allowed_tools or ())
        if not args["allowed_tools"]:
            del args["allowed_tools"]
    if log is not None:
        names = ", ".join(str(getattr(m, "name", m)) for m in made)
        log(f"running {len(table)} tasks x {len(made)} model(s) ({names}) x {epochs} epoch(s) -> {log_dir}")
    options: dict[str, Any] = {}
    for key, value in (("max_connections", max_connections), ("max_samples", max_samples),
                       ("retry_attempts", retry_attempts), ("display", display)):  # fmt: skip
        if value is not None:
            options[key] = value
    return eval_set(_task_name(), task_args=args, model=made, log_dir=os.fspath(log_dir), **options)


_positive = whole_number(1)
_count = whole_number(0)


def add_run_command(sub: Any) -> None:
    """Add the ``run`` command to the ``sgr-kit`` parser's subcommands ``sub``."""
    p = sub.add_parser("run", help="run the benchmark on models under the paper's protocol (inspect_ai eval set)",
                       description="Run SGR-Bench for one or more models as one inspect_ai eval set: the paper's "
                                   "prompt, tools (search, fetch, read_pdf) and limits, scored by sgr-kit. The "
                                   "logs go to --log-dir; the same command again finishes only what is missing or "
                                   "failed. Needs the extras inspect and run.")  # fmt: skip
    p.add_argument("--model", action="append", required=True, metavar="PROVIDER/MODEL",
                   help="a model, e.g. openai/gpt-5.5 or anthropic/claude-opus-4-7 (repeatable)")
    p.add_argument("--tasks", action="extend", nargs="+", required=True, metavar="PATH",
                   help="tasks: release JSONL file, folder, parquet file or Hugging Face dataset id (PKUAIWeb/SGR-BENCH "
                        "for the release)")
    p.add_argument("--log-dir", required=True, metavar="DIR",
                   help="the eval set's log folder (inspect_ai .eval logs); the same folder resumes the run")
    p.add_argument("--report", metavar="DIR", help="then build the report from the logs into DIR")
    p.add_argument("--epochs", type=_positive, default=1, metavar="N", help="runs of each task per model (default 1)")
    p.add_argument("--variant", choices=("both", "constraint", "goal"), default="both",
                   help="which tasks: both variants (default), constraint or goal")
    p.add_argument("--language", choices=("en", "zh"), default="en", help="the release's translation (default en)")
    p.add_argument("--agent", choices=("react", "claude-code", "codex-cli"), default="react",
                   help="inspect_ai's ReAct agent (default), or the paper's CLI agents in a Docker sandbox through "
                        "inspect_swe")
    p.add_argument("--search-url", metavar="URL",
                   help="a Serper-compatible endpoint instead of Serper (default: SGR_SEARCH_URL, else Serper, which "
                        "needs SERPER_API_KEY)")
    p.add_argument("--mcp", metavar="FILE",
                   help="a .mcp.json file: the agent gets these MCP servers' tools named in --allowed-tools instead "
                        "of the paper's tools")
    p.add_argument("--allowed-tools", metavar="LIST", help="with --mcp: the tools offered, comma-separated "
                   "(default search,fetch,read_pdf)")
    p.add_argument("--protocol", default="paper", metavar="PROFILE",
                   help="the limits: paper (default: 6000 s per task, stalled after 3000 s without trace progress), "
                        "none, or a YAML/JSON profile file")
    p.add_argument("--profile", choices=("paper", "strict"), default="paper", help="the scoring profile")
    p.add_argument("--max-connections", type=_positive, metavar="N", help="concurrent connections to each model")
    p.add_argument("--max-samples", type=_positive, metavar="N", help="samples run at once")
    p.add_argument("--retry-attempts", type=_count, metavar="N", help="retries of a task with failed samples "
                   "(inspect_ai's default 10)")
    p.add_argument("--sandbox", metavar="TYPE", help="the sandbox of a CLI agent (default docker; k8s with "
                   "inspect_k8s_sandbox)")
    p.add_argument("--display", choices=("full", "conversation", "rich", "plain", "log", "none"),
                   help="inspect_ai's progress display")
    p.add_argument("--force", action="store_true", help="with --report: replace an existing sgr-kit report in DIR")
    p.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    """``sgr-kit run``: :func:`run_benchmark`, then the report; exit status 0 when every sample finished."""
    import sys

    allowed = [t.strip() for t in args.allowed_tools.split(",") if t.strip()] if args.allowed_tools else None
    report = Path(args.report) if args.report is not None else None
    if report is not None and not args.force and report.exists() and (not report.is_dir() or any(report.iterdir())):
        raise SgrKitError(f"--report {report}: exists and is not empty; give --force to replace an sgr-kit report "
                          f"there, or another folder")  # fmt: skip
    say = (lambda line: print(line, file=sys.stderr, flush=True))
    success, logs = run_benchmark(
        args.model, args.tasks, args.log_dir, variant=args.variant, language=args.language, protocol=args.protocol,
        profile=args.profile, search_url=args.search_url, agent=args.agent, mcp=args.mcp, allowed_tools=allowed,
        epochs=args.epochs, max_connections=args.max_connections, max_samples=args.max_samples,
        retry_attempts=args.retry_attempts, sandbox=args.sandbox, display=args.display, log=say,
    )  # fmt: skip
    done = sum(1 for log in logs if getattr(log, "status", None) == "success")
    print(f"{'finished' if success else 'not finished'}: {done} of {len(logs)} model run(s) complete; logs in "
          f"{args.log_dir}" + ("" if success else " (run the same command again to finish what is missing)"))
    if args.report is not None:
        from ..report.build import build_report

        result = build_report(args.tasks, [args.log_dir], args.report, trajectories=args.log_dir,
                              profile=args.profile, language=args.language, force=args.force,
                              protocol=args.protocol, log=say, progress=False,
                              command=" ".join(["sgr-kit", *sys.argv[1:]]))  # fmt: skip
        print(f"report: {len(result.files)} files in {args.report}; open {Path(args.report) / 'index.html'}")
        if not result.ok:
            return 1
    return 0 if success else 1
