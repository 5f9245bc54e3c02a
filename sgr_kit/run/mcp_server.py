"""The paper's three tools as an MCP server (``sgr-kit mcp``), and the CLI configurations that use it.

The paper's CLI systems reached the web only through "Serper search, fetch-based webpage
reading, and PDF reading", exposed as MCP tools under "a strict MCP configuration"; "a
companion settings file additionally disables the Claude-native WebSearch and WebFetch tools"
(Appendix C, "Exposed tools and runtime restrictions"). This module serves the same three tools
as :mod:`sgr_kit.run.tools` (one client, :mod:`sgr_kit.run.web`) over stdio with the official
``mcp`` SDK, and writes the files a user needs to run the CLIs by hand:

- ``claude-code``: ``.mcp.json`` (the server, for ``claude --mcp-config .mcp.json
  --strict-mcp-config``: no other MCP server is loaded) and ``.claude/settings.json``
  (permissions that deny ``WebSearch`` and ``WebFetch`` and allow the three tools);
- ``codex``: ``.codex/config.toml`` (the ``[mcp_servers.sgr]`` table, its tools listed in
  ``enabled_tools``, and ``web_search = "disabled"``).

Keys are never written into these files: they name the environment variables
(``SERPER_API_KEY``, ``SGR_SEARCH_URL``) the CLI passes on to the server. A file that exists
is replaced only with ``force``, and only when sgr-kit wrote it and it was not changed since
(``.sgr-kit-mcp.json`` beside them records what was written).
"""

import argparse  # no `from __future__ import annotations`: the SDK reads the tools' annotations at run time
import hashlib
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any, Sequence

from ..errors import SgrKitError, decode_json
from ..output import write_text
from . import web

__all__ = [
    "CONFIG_KINDS",
    "SERVER_NAME",
    "TOOL_NAMES",
    "add_mcp_command",
    "build_server",
    "claude_code_files",
    "codex_files",
    "default_command",
    "serve",
    "write_config",
]

#: The server's name in the CLI configurations (Claude Code calls its tools ``mcp__sgr__search`` ...).
SERVER_NAME = "sgr"
#: The three tools, in the paper's order.
TOOL_NAMES = ("search", "fetch", "read_pdf")
#: The configurations :func:`write_config` writes.
CONFIG_KINDS = ("claude-code", "codex")

_MANIFEST = ".sgr-kit-mcp.json"
_ENV = (web.API_KEY_ENV, web.SEARCH_URL_ENV)

_SEARCH_DOC = """Search the web (Google results) and list the top results: title, link and a snippet of each.

Read a result's page with fetch(url), or read_pdf(url) for a PDF."""
_FETCH_DOC = """Fetch a web page and return its readable text as Markdown: headings, paragraphs, tables and links.

Long pages are cut. For a PDF document, use read_pdf(url) instead."""
_PDF_DOC = """Download a PDF document and return its text, page by page.

Long documents are cut. For an HTML page, use fetch(url) instead."""
_QUERY = "The search query, as you would type it into a search engine."
_PAGE_URL = "The page's full http or https URL."
_PDF_URL = "The PDF's full http or https URL."


def _sdk() -> tuple[type, type]:
    """The SDK's server class and tool error: ``MCPServer`` (mcp 2) or ``FastMCP`` (mcp 1)."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
    except ImportError:
        try:
            from mcp.server.fastmcp import FastMCP as MCPServer
            from mcp.server.fastmcp.exceptions import ToolError
        except ImportError:
            raise SgrKitError("sgr-kit mcp needs the mcp package: pip install 'sgr-kit[run]'") from None
    return MCPServer, ToolError


def build_server(*, search_url: str | None = None) -> Any:
    """An MCP server (not yet running) offering ``search``, ``fetch`` and ``read_pdf``.

    Parameters
    ----------
    search_url : str, optional
        The search endpoint's base URL (default: ``SGR_SEARCH_URL``, else Serper's).

    Returns
    -------
    mcp.server.mcpserver.MCPServer or mcp.server.fastmcp.FastMCP
        Run it with ``.run("stdio")``; its tools' descriptions are those of the inspect tools.
    """
    from typing import Annotated

    from pydantic import Field

    server_class, tool_error = _sdk()
    server = server_class(name=SERVER_NAME, instructions="SGR-Bench's retrieval tools: web search, page reading and "
                                                         "PDF reading.")  # fmt: skip

    @server.tool(name="search", description=_SEARCH_DOC, structured_output=False)
    async def search(query: Annotated[str, Field(description=_QUERY)]) -> str:
        try:
            return web.format_results(await web.web_search(query, search_url=search_url), query)
        except web.WebError as exc:
            raise tool_error(str(exc)) from None

    @server.tool(name="fetch", description=_FETCH_DOC, structured_output=False)
    async def fetch(url: Annotated[str, Field(description=_PAGE_URL)]) -> str:
        try:
            return await web.fetch_text(url)
        except web.WebError as exc:
            raise tool_error(str(exc)) from None

    @server.tool(name="read_pdf", description=_PDF_DOC, structured_output=False)
    async def read_pdf(url: Annotated[str, Field(description=_PDF_URL)]) -> str:
        try:
            return await web.pdf_text(url)
        except web.WebError as exc:
            raise tool_error(str(exc)) from None

    return server


def serve(*, search_url: str | None = None, check: bool = True) -> None:
    """Run the MCP server on stdin and stdout until the client closes it.

    Parameters
    ----------
    search_url : str, optional
        As for :func:`build_server`.
    check : bool
        Check the search endpoint first (:func:`sgr_kit.run.web.check_search_ready`): without a
        key for Serper, or with an endpoint that cannot be reached, the server does not start,
        and the CLI that started it reports the message.

    Raises
    ------
    SgrKitError
        From the check.
    """
    if check:
        web.check_search_ready(search_url)
    build_server(search_url=search_url).run("stdio")


def default_command() -> list[str]:
    """The command that starts this server: the ``sgr-kit`` beside the running Python, with ``mcp``.

    Examples
    --------
    >>> default_command()[-1]
    'mcp'
    """
    beside = Path(sys.executable).with_name("sgr-kit")
    if beside.is_file():
        return [str(beside), "mcp"]
    found = shutil.which("sgr-kit")
    return [found, "mcp"] if found else [sys.executable, "-m", "sgr_kit.cli", "mcp"]


def _command(command: Sequence[str] | None, search_url: str | None) -> list[str]:
    parts = list(command) if command else default_command()
    if not parts or not all(isinstance(p, str) and p for p in parts):
        raise SgrKitError(f"the server command should be a non-empty list of texts; found {parts!r}")
    return parts + (["--search-url", search_url] if search_url else [])


def claude_code_files(*, command: Sequence[str] | None = None, search_url: str | None = None) -> dict[str, str]:
    """Claude Code's files for the paper's protocol: ``.mcp.json`` and ``.claude/settings.json``.

    Run Claude Code in the folder that holds them as ``claude --mcp-config .mcp.json
    --strict-mcp-config --settings .claude/settings.json ...``: the strict configuration loads
    no MCP server but this one, and the settings deny the native ``WebSearch`` and ``WebFetch``
    tools and allow the three MCP tools (``mcp__sgr__search``, ...), so a run without prompts
    needs no other permission for them. The server's environment names ``SERPER_API_KEY`` and
    ``SGR_SEARCH_URL`` as ``${VAR:-}``, which Claude Code fills in from its own environment.

    Parameters
    ----------
    command : sequence of str, optional
        The command that starts the server (default: :func:`default_command`).
    search_url : str, optional
        A search endpoint's base URL, passed to the server as ``--search-url``.

    Returns
    -------
    dict of str to str
        Relative path to file content.

    References
    ----------
    Claude Code's documentation: "Connect Claude Code to tools via MCP" (project scope,
    ``.mcp.json``, environment variable expansion), the CLI reference (``--mcp-config``,
    ``--strict-mcp-config``, ``--settings``) and "Settings" (``permissions.deny``).

    Examples
    --------
    >>> files = claude_code_files(command=["sgr-kit", "mcp"])
    >>> sorted(files)
    ['.claude/settings.json', '.mcp.json']
    >>> json.loads(files[".claude/settings.json"])["permissions"]["deny"]
    ['WebSearch', 'WebFetch']
    """
    parts = _command(command, search_url)
    server = {"type": "stdio", "command": parts[0], "args": parts[1:],
              "env": {name: f"${{{name}:-}}" for name in _ENV}}  # fmt: skip
    settings = {"permissions": {"allow": [f"mcp__{SERVER_NAME}__{name}" for name in TOOL_NAMES],
                                "deny": ["WebSearch", "WebFetch"]}}  # fmt: skip
    return {".mcp.json": json.dumps({"mcpServers": {SERVER_NAME: server}}, indent=2) + "\n",
            ".claude/settings.json": json.dumps(settings, indent=2) + "\n"}  # fmt: skip


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string (same escapes)
    return "[" + ", ".join(_toml(v) for v in value) + "]"


def codex_files(*, command: Sequence[str] | None = None, search_url: str | None = None) -> dict[str, str]:
    """Codex CLI's file for the paper's protocol: ``.codex/config.toml``.

    It turns Codex's own web search off (``web_search = "disabled"``) and declares the server as
    ``[mcp_servers.sgr]``: its command, the environment variables passed on to it
    (``env_vars``), only the three tools enabled, and ``required = true`` (Codex stops when the
    server does not start). Codex reads a project's ``.codex/config.toml`` in a trusted project;
    the same lines can go into ``~/.codex/config.toml`` (or ``$CODEX_HOME/config.toml``).

    Parameters
    ----------
    command : sequence of str, optional
        The command that starts the server (default: :func:`default_command`).
    search_url : str, optional
        A search endpoint's base URL, passed to the server as ``--search-url``.

    Returns
    -------
    dict of str to str
        Relative path to file content.

    References
    ----------
    openai/codex: ``codex-rs/protocol/src/config_types.rs`` (``WebSearchMode``: ``disabled``,
    ``cached``, ``live``), the ``web_search`` key of ``ConfigToml`` and the MCP server keys
    (``command``, ``args``, ``env_vars``, ``enabled_tools``, ``required``,
    ``startup_timeout_sec``, ``tool_timeout_sec``) of its configuration documentation.

    Examples
    --------
    >>> print(codex_files(command=["sgr-kit", "mcp"])[".codex/config.toml"])  # doctest: +ELLIPSIS
    # The paper's protocol for Codex CLI ...
    web_search = "disabled"
    <BLANKLINE>
    [mcp_servers.sgr]
    command = "sgr-kit"
    args = ["mcp"]
    env_vars = ["SERPER_API_KEY", "SGR_SEARCH_URL"]
    enabled_tools = ["search", "fetch", "read_pdf"]
    required = true
    startup_timeout_sec = 60
    tool_timeout_sec = 120
    <BLANKLINE>
    """
    parts = _command(command, search_url)
    table = {"command": parts[0], "args": parts[1:], "env_vars": list(_ENV), "enabled_tools": list(TOOL_NAMES),
             "required": True, "startup_timeout_sec": 60, "tool_timeout_sec": 120}  # fmt: skip
    lines = ["# The paper's protocol for Codex CLI (written by sgr-kit mcp --write-config codex): only the",
             "# three retrieval tools of the MCP server below, and Codex's own web search turned off.",
             'web_search = "disabled"', "", f"[mcp_servers.{SERVER_NAME}]"]  # fmt: skip
    lines += [f"{key} = {_toml(value)}" for key, value in table.items()]
    return {".codex/config.toml": "\n".join(lines) + "\n"}


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _manifest(folder: Path) -> dict[str, str]:
    path = folder / _MANIFEST
    if not path.is_file():
        return {}
    data, _ = decode_json(path.read_text(encoding="utf-8", errors="replace"), path)
    files = data.get("files") if isinstance(data, dict) else None
    return {str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else {}


def write_config(kind: str, folder: str | os.PathLike, *, force: bool = False, command: Sequence[str] | None = None,
                 search_url: str | None = None) -> list[Path]:  # fmt: skip
    """Write a CLI's configuration for the paper's protocol into ``folder``.

    Parameters
    ----------
    kind : {"claude-code", "codex"}
        Which CLI (see :func:`claude_code_files` and :func:`codex_files`).
    folder : path
        Where to write (created when missing): the folder the CLI runs in.
    force : bool
        Replace files that exist, when sgr-kit wrote them and they were not changed since.
    command : sequence of str, optional
        The command that starts the server (default: :func:`default_command`).
    search_url : str, optional
        A search endpoint's base URL for the server.

    Returns
    -------
    list of Path
        The files written.

    Raises
    ------
    SgrKitError
        An unknown ``kind``; a file that exists (without ``force``), or that sgr-kit did not
        write or that was changed since (even with ``force``).
    """
    makers = {"claude-code": claude_code_files, "codex": codex_files}
    if kind not in makers:
        raise SgrKitError(f"--write-config: expected one of {', '.join(CONFIG_KINDS)}; found {kind!r}")
    out = Path(folder)
    if out.exists() and not out.is_dir():
        raise SgrKitError(f"{folder} is a file; expected a folder to write the {kind} configuration into")
    files = makers[kind](command=command, search_url=search_url)
    written = _manifest(out)
    for name in files:
        path = out / name
        if not path.exists():
            continue
        if not force:
            raise SgrKitError(f"{path} already exists; pass --force to replace it (only a file sgr-kit wrote is "
                              f"replaced)")  # fmt: skip
        current = path.read_bytes().decode("utf-8", errors="replace") if path.is_file() else None
        if current is None or written.get(name) != _digest(current):
            raise SgrKitError(f"{path} was not written by sgr-kit, or was changed since; --force replaces only files "
                              f"sgr-kit wrote. Move it, or choose another folder")  # fmt: skip
    paths = []
    for name, text in files.items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        paths.append(write_text(text, path, force=force))
        written[name] = _digest(text)
    manifest = {"written_by": "sgr-kit mcp --write-config", "files": dict(sorted(written.items()))}
    write_text(json.dumps(manifest, indent=2) + "\n", out / _MANIFEST, force=True)
    return paths


def add_mcp_command(sub: Any) -> None:
    """Add ``sgr-kit mcp`` to the command line's subparsers (imports no MCP SDK until it runs)."""
    p = sub.add_parser("mcp", help="serve the paper's three tools (search, fetch, read_pdf) as an MCP server on "
                                   "stdio, or write a CLI's configuration for them",  # fmt: skip
                       description="Without --write-config: run the MCP server on stdin/stdout (for an MCP client "
                                   "such as Claude Code or Codex CLI). With --write-config KIND DIR: write that "
                                   "CLI's configuration for the paper's protocol into DIR.")  # fmt: skip
    p.add_argument("--search-url", metavar="URL", help=f"a Serper-compatible search endpoint's base URL (default: "
                                                       f"${web.SEARCH_URL_ENV}, else {web.SEARCH_URL})")  # fmt: skip
    p.add_argument("--write-config", nargs=2, metavar=("KIND", "DIR"),
                   help=f"write the configuration of KIND ({', '.join(CONFIG_KINDS)}) into folder DIR")  # fmt: skip
    p.add_argument("--command", metavar="CMD", nargs="+",
                   help="with --write-config: the command that starts the server (default: this sgr-kit's path, mcp)")
    p.add_argument("--force", action="store_true", help="with --write-config: replace files sgr-kit wrote there before")
    p.set_defaults(func=_cmd_mcp)


def _cmd_mcp(args: argparse.Namespace) -> int:
    if args.search_url:
        web.resolve_search_url(args.search_url)  # refuses a URL that is not http or https
    if args.write_config:
        kind, folder = args.write_config
        for path in write_config(kind, folder, force=args.force, command=args.command, search_url=args.search_url):
            print(f"wrote {path}")
        return 0
    if args.command or args.force:
        raise SgrKitError("mcp: --command and --force go with --write-config KIND DIR")
    serve(search_url=args.search_url)
    return 0
