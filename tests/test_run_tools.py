"""The paper's three tools as inspect_ai tools (sgr_kit.run.tools), against the loopback web.

What the model is offered (names, arguments, descriptions), what each returns, and that a
tool failing mid-run is an error the model reads and the log records, never the end of the
sample (an agent run on inspect's ``mockllm/model`` with scripted outputs).
"""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai.tool import ToolDef, ToolError  # noqa: E402

from webfixture import PDF_PAGES, web_server  # noqa: E402,F401  (web_server: the pytest fixture)

from sgr_kit.run.tools import fetch, paper_tools, read_pdf, search  # noqa: E402


def test_the_model_is_offered_search_fetch_and_read_pdf_with_the_papers_arguments():
    offered = [ToolDef(t) for t in paper_tools()]
    assert [(d.name, list(d.parameters.properties), d.parameters.required) for d in offered] == [
        ("search", ["query"], ["query"]), ("fetch", ["url"], ["url"]), ("read_pdf", ["url"], ["url"])]
    for d in offered:
        assert d.description and all(p.description for p in d.parameters.properties.values())
        assert all(p.type == "string" for p in d.parameters.properties.values())
    assert "read_pdf" in ToolDef(fetch()).description  # fetch points to read_pdf for PDFs, and back
    assert "fetch" in ToolDef(read_pdf()).description


def test_the_tools_return_text(web_server):
    found = asyncio.run(search(search_url=web_server.search_url)(query="census"))
    assert found.startswith(f"1. Population by county - State census office\n   {web_server.page('county-table')}\n   "
                            f"Resident population")  # fmt: skip
    assert asyncio.run(search(search_url=web_server.search_url)(query="no results")) == "No results for 'no results'."
    page = asyncio.run(fetch()(url=web_server.page("county-table")))
    assert "| Alphaville | 12,345 |" in page
    pdf = asyncio.run(read_pdf()(url=web_server.pdf_url))
    assert PDF_PAGES[1] in pdf


@pytest.mark.parametrize("call, match", [
    (lambda s: search(search_url=s.search_url)(query="status 500"), "answered HTTP 500"),
    (lambda s: fetch(timeout=0.5)(url=f"{s.url}/slow"), "timed out after 0.5 s"),
    (lambda s: fetch()(url=s.pdf_url), "is a PDF document: read it with read_pdf"),
    (lambda s: fetch()(url="file:///etc/passwd"), "only http and https URLs are fetched"),
    (lambda s: read_pdf()(url=s.page("index")), "is not a PDF"),
    (lambda s: read_pdf(max_bytes=100)(url=s.pdf_url), "read_pdf reads PDFs of at most 100 bytes"),
])  # fmt: skip
def test_a_failing_tool_raises_a_tool_error(web_server, call, match):
    with pytest.raises(ToolError, match=match):
        asyncio.run(call(web_server))


def test_a_refused_address_is_a_tool_error(web_server, monkeypatch):
    monkeypatch.delenv("SGR_FETCH_ALLOW_PRIVATE")
    with pytest.raises(ToolError, match=r"resolves to 127\.0\.0\.1, a loopback address; only public internet"):
        asyncio.run(fetch()(url=web_server.page("index")))


def _scripted(*calls):
    from inspect_ai.model import ModelOutput, ModelUsage

    outputs = []
    for name, arguments in calls:
        output = ModelOutput.for_tool_call("mockllm/model", name, arguments, content="")
        output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        outputs.append(output)
    return outputs


def test_tool_failures_mid_run_are_read_by_the_model_and_the_sample_goes_on(web_server, tmp_path, monkeypatch):
    from inspect_ai import Task, eval
    from inspect_ai.agent import react
    from inspect_ai.dataset import Sample
    from inspect_ai.event import ToolEvent
    from inspect_ai.model import get_model
    from inspect_ai.scorer import exact

    monkeypatch.chdir(tmp_path)  # nothing is written into the checkout
    outputs = _scripted(("search", {"query": "county population"}), ("fetch", {"url": f"{web_server.url}/status/500"}),
                        ("fetch", {"url": f"{web_server.url}/slow"}), ("read_pdf", {"url": web_server.page("index")}),
                        ("fetch", {"url": "file:///etc/passwd"}), ("read_pdf", {"url": web_server.pdf_url}),
                        ("submit", {"answer": "12345"}))  # fmt: skip
    tools = [search(search_url=web_server.search_url), fetch(timeout=0.5), read_pdf()]
    task = Task(dataset=[Sample(id="t1", input="Population of Alpha county?", target="12345")],
                solver=react(tools=tools), scorer=exact())  # fmt: skip
    (log,) = eval(task, model=get_model("mockllm/model", custom_outputs=outputs), log_dir=str(tmp_path / "logs"),
                  display="none")  # fmt: skip
    assert log.status == "success"
    (sample,) = log.samples
    assert sample.error is None and sample.output.completion == "12345"
    events = [e for e in sample.events if isinstance(e, ToolEvent)]
    assert [e.function for e in events] == ["search", "fetch", "fetch", "read_pdf", "fetch", "read_pdf", "submit"]
    errors = [e.error.message if e.error else None for e in events]
    assert errors[0] is None and errors[5] is None
    assert "answered HTTP 500" in errors[1] and "timed out after 0.5 s" in errors[2]
    assert "is not a PDF" in errors[3] and "only http and https URLs are fetched" in errors[4]
    seen = [m for m in sample.messages if m.role == "tool"]  # what the model read
    assert [m.error.message if m.error else None for m in seen[:6]] == errors[:6]
    assert PDF_PAGES[0] in seen[5].text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["logs"]
