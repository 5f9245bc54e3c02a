"""``sgr-kit mcp``: the paper's three tools as a stdio MCP server, and the CLI configurations (sgr_kit.run.mcp_server).

The server runs as a subprocess, started by the command the written configuration names, and is
driven by the official ``mcp`` SDK's stdio client against the loopback web; every exchange is
bounded in time. The files' shapes follow Claude Code's documentation (``.mcp.json``,
``permissions.deny``) and openai/codex's configuration (``[mcp_servers.<name>]``,
``web_search = "disabled"``); see sgr_kit/run/mcp_server.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tomllib

import pytest

pytest.importorskip("mcp")

from webfixture import PDF_PAGES, web_server  # noqa: E402,F401  (web_server: the pytest fixture)

from sgr_kit.cli import main  # noqa: E402
from sgr_kit.errors import SgrKitError  # noqa: E402
from sgr_kit.run import mcp_server  # noqa: E402
from sgr_kit.run.mcp_server import claude_code_files, codex_files, write_config  # noqa: E402


def _is_error(result) -> bool:
    return bool(getattr(result, "is_error", None) or getattr(result, "isError", None))


async def _session(command: list[str], env: dict[str, str], calls: list[tuple[str, dict]]):
    """Start the server with ``command``, list its tools, make ``calls``: (tools, [(is_error, text)])."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    with anyio.fail_after(90):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            results = []
            for name, arguments in calls:
                result = await session.call_tool(name, arguments)
                results.append((_is_error(result), "".join(getattr(c, "text", "") for c in result.content)))
    return tools, results


def _server_env(**extra: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "SYSTEMROOT", "TMPDIR")}
    return {**keep, **extra}


@pytest.mark.slow
def test_the_written_claude_code_config_starts_a_server_that_offers_the_three_tools(web_server, tmp_path):
    write_config("claude-code", tmp_path, search_url=web_server.search_url)
    server = json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"]["sgr"]
    assert server["args"][-2:] == ["--search-url", web_server.search_url]
    calls = [("search", {"query": "census"}), ("fetch", {"url": web_server.page("county-table")}),
             ("read_pdf", {"url": web_server.pdf_url}), ("fetch", {"url": f"{web_server.url}/status/404"}),
             ("read_pdf", {"url": web_server.page("index")})]  # fmt: skip
    env = _server_env(SGR_FETCH_ALLOW_PRIVATE="1", SERPER_API_KEY="test-key")
    tools, results = asyncio.run(_session([server["command"], *server["args"]], env, calls))

    assert [t.name for t in tools] == ["search", "fetch", "read_pdf"]
    schemas = [getattr(t, "input_schema", None) or getattr(t, "inputSchema") for t in tools]
    assert [(list(s["properties"]), s["required"]) for s in schemas] == [(["query"], ["query"]), (["url"], ["url"]),
                                                                        (["url"], ["url"])]  # fmt: skip
    assert [ok for ok, _ in results] == [False, False, False, True, True]
    assert results[0][1].startswith(f"1. Population by county - State census office\n   {web_server.page('county-table')}")
    assert "| Alphaville | 12,345 |" in results[1][1]
    assert PDF_PAGES[1] in results[2][1]
    assert results[3][1].endswith("/status/404 answered HTTP 404 Not Found")
    assert "is not a PDF" in results[4][1]
    assert web_server.searches[0]["body"] == {"q": "census"}
    assert web_server.searches[0]["headers"]["x-api-key"] == "test-key"


def test_the_mcp_tools_describe_themselves_as_the_inspect_tools_do():
    pytest.importorskip("inspect_ai")
    from inspect_ai.tool import ToolDef

    from sgr_kit.run.tools import paper_tools

    server = mcp_server.build_server()
    listed = asyncio.run(server.list_tools())
    for mcp_tool, inspect_tool in zip(listed, map(ToolDef, paper_tools()), strict=True):
        assert mcp_tool.name == inspect_tool.name
        assert mcp_tool.description == inspect_tool.description
        schema = getattr(mcp_tool, "input_schema", None) or getattr(mcp_tool, "inputSchema")
        assert {k: v["description"] for k, v in schema["properties"].items()} == {
            k: v.description for k, v in inspect_tool.parameters.properties.items()}


@pytest.mark.slow  # starts the server
def test_the_server_refuses_a_loopback_address_unless_private_addresses_are_allowed(web_server, tmp_path):
    command = mcp_server.default_command() + ["--search-url", web_server.search_url]
    _, results = asyncio.run(_session(command, _server_env(), [("fetch", {"url": web_server.page("index")})]))
    ((failed, text),) = results
    assert failed and text.endswith(f"refused {web_server.page('index')}: it resolves to 127.0.0.1, a loopback address; "
                                    f"only public internet addresses are fetched")  # fmt: skip


@pytest.mark.parametrize("args, env, match", [
    ([], {}, "sgr-kit: error: the search tool calls Serper (https://google.serper.dev/search), which needs an API key"),
    (["--search-url", "http://127.0.0.1:9"], {}, "sgr-kit: error: the search endpoint http://127.0.0.1:9/search cannot "
                                                 "be reached"),
    (["--search-url", "ftp://x"], {}, "sgr-kit: error: search_url: expected an http or https base URL"),
])  # fmt: skip
def test_a_server_that_cannot_search_does_not_start_and_says_why(args, env, match):
    done = subprocess.run([*mcp_server.default_command(), *args], env=_server_env(**env), stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2
    assert match in done.stderr
    assert done.stdout == ""  # nothing an MCP client could take for a message


def test_claude_code_files_name_the_server_deny_the_native_web_tools_and_hold_no_key(tmp_path, monkeypatch):
    monkeypatch.setenv("SERPER_API_KEY", "secret-key-value")
    paths = write_config("claude-code", tmp_path, command=["/opt/sgr/bin/sgr-kit", "mcp"])
    assert sorted(p.relative_to(tmp_path).as_posix() for p in paths) == [".claude/settings.json", ".mcp.json"]
    config = json.loads((tmp_path / ".mcp.json").read_text())
    assert config == {"mcpServers": {"sgr": {"type": "stdio", "command": "/opt/sgr/bin/sgr-kit", "args": ["mcp"],
                                             "env": {"SERPER_API_KEY": "${SERPER_API_KEY:-}",
                                                     "SGR_SEARCH_URL": "${SGR_SEARCH_URL:-}"}}}}  # fmt: skip
    settings = json.loads((tmp_path / ".claude" / "settings.json").read_text())
    assert settings == {"permissions": {"allow": ["mcp__sgr__search", "mcp__sgr__fetch", "mcp__sgr__read_pdf"],
                                        "deny": ["WebSearch", "WebFetch"]}}  # fmt: skip
    for path in tmp_path.rglob("*"):
        assert not path.is_file() or "secret-key-value" not in path.read_text()


def test_codex_config_is_valid_toml_with_web_search_disabled_and_only_the_three_tools(tmp_path):
    (path,) = write_config("codex", tmp_path, command=["sgr kit", 'with "quotes"'], search_url="http://127.0.0.1:1/s")
    assert path == tmp_path / ".codex" / "config.toml"
    config = tomllib.loads(path.read_text())
    assert config["web_search"] == "disabled"
    assert config["mcp_servers"] == {"sgr": {
        "command": "sgr kit", "args": ['with "quotes"', "--search-url", "http://127.0.0.1:1/s"],
        "env_vars": ["SERPER_API_KEY", "SGR_SEARCH_URL"], "enabled_tools": ["search", "fetch", "read_pdf"],
        "required": True, "startup_timeout_sec": 60, "tool_timeout_sec": 120}}  # fmt: skip


@pytest.mark.slow  # starts the server
def test_the_codex_config_starts_the_server_too(web_server, tmp_path):
    write_config("codex", tmp_path, search_url=web_server.search_url)
    server = tomllib.loads((tmp_path / ".codex" / "config.toml").read_text())["mcp_servers"]["sgr"]
    env = _server_env(SERPER_API_KEY="k", SGR_FETCH_ALLOW_PRIVATE="1")
    tools, results = asyncio.run(_session([server["command"], *server["args"]], env, [("search", {"query": "x"})]))
    assert [t.name for t in tools] == server["enabled_tools"]
    assert results[0][0] is False


def test_existing_files_are_replaced_only_with_force_and_only_when_sgr_kit_wrote_them(tmp_path):
    write_config("claude-code", tmp_path, command=["a", "mcp"])
    with pytest.raises(SgrKitError, match=r"\.mcp\.json already exists; pass --force to replace it \(only a file "
                                          r"sgr-kit wrote is replaced\)$"):  # fmt: skip
        write_config("claude-code", tmp_path, command=["b", "mcp"])
    write_config("claude-code", tmp_path, command=["b", "mcp"], force=True)
    assert json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"]["sgr"]["command"] == "b"
    write_config("codex", tmp_path, command=["b", "mcp"])  # a second CLI's files beside the first
    (tmp_path / ".claude" / "settings.json").write_text('{"permissions": {"deny": ["Bash"]}}\n')  # the user's edit
    with pytest.raises(SgrKitError, match=r"settings\.json was not written by sgr-kit, or was changed since; --force "
                                          r"replaces only files sgr-kit wrote"):  # fmt: skip
        write_config("claude-code", tmp_path, command=["c", "mcp"], force=True)
    assert "Bash" in (tmp_path / ".claude" / "settings.json").read_text()
    assert json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"]["sgr"]["command"] == "b"  # nothing written
    write_config("codex", tmp_path, command=["c", "mcp"], force=True)  # the codex file is still sgr-kit's own


def test_a_users_own_file_is_never_replaced(tmp_path):
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex" / "config.toml").write_text('model = "mine"\n')
    with pytest.raises(SgrKitError, match="was not written by sgr-kit"):
        write_config("codex", tmp_path, force=True)
    assert (tmp_path / ".codex" / "config.toml").read_text() == 'model = "mine"\n'


def test_write_config_checks_its_arguments(tmp_path):
    with pytest.raises(SgrKitError, match=r"^--write-config: expected one of claude-code, codex; found 'cursor'$"):
        write_config("cursor", tmp_path)
    (tmp_path / "file").write_text("x")
    with pytest.raises(SgrKitError, match=r"file is a file; expected a folder to write the codex configuration into$"):
        write_config("codex", tmp_path / "file")
    with pytest.raises(SgrKitError, match=r"^the server command should be a non-empty list of texts; found \[''\]$"):
        claude_code_files(command=[""])


def test_the_command_line_writes_the_configs(tmp_path, capsys):
    assert main(["mcp", "--write-config", "claude-code", str(tmp_path), "--command", "sgr-kit", "mcp"]) == 0
    assert capsys.readouterr().out.splitlines() == [f"wrote {tmp_path / '.mcp.json'}",
                                                    f"wrote {tmp_path / '.claude' / 'settings.json'}"]  # fmt: skip
    assert main(["mcp", "--write-config", "codex", str(tmp_path)]) == 0
    assert main(["mcp", "--write-config", "codex", str(tmp_path)]) == 2
    assert "config.toml already exists; pass --force" in capsys.readouterr().err
    assert main(["mcp", "--write-config", "vscode", str(tmp_path)]) == 2
    assert main(["mcp", "--force"]) == 2
    assert "sgr-kit: error: mcp: --command and --force go with --write-config KIND DIR" in capsys.readouterr().err
    assert codex_files(command=["x"]) == {".codex/config.toml": (tmp_path / ".codex" / "config.toml").read_text()
                                          .replace(json.dumps(mcp_server.default_command()[0]), '"x"')
                                          .replace('args = ["mcp"]', "args = []")}  # fmt: skip


def test_the_default_command_is_this_environments_sgr_kit():
    command = mcp_server.default_command()
    assert command[-1] == "mcp"
    assert os.path.dirname(command[0]) == os.path.dirname(sys.executable) or command[0] == sys.executable
