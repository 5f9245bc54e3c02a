"""One step: the documented format's checks, and how an agent's tool call becomes a step."""

from __future__ import annotations

import math

import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.trajectories import EXCERPT_CHARS, Step, Trajectory, kind_of_tool, tool_step
from sgr_kit.trajectories.steps import excerpt, native_step


@pytest.mark.parametrize("name, kind", [
    ("WebSearch", "search"), ("web_search", "search"), ("mcp__brave__brave_web_search", "search"),
    ("WebFetch", "fetch"), ("fetch", "fetch"), ("mcp__playwright__browser_navigate", "fetch"),
    ("open_url", "fetch"), ("read_pdf", "pdf"), ("mcp__papers__pdf", "pdf"),
    ("Bash", "tool"), ("Read", "tool"), ("Task", "tool"), ("python", "tool"),
])
def test_kind_of_tool(name, kind):
    assert kind_of_tool(name) == kind


def test_tool_step_takes_url_or_query_from_the_arguments():
    assert tool_step("fetch", {"uri": "https://a.org/x.PDF?dl=1"}).kind == "pdf"
    assert tool_step("fetch", {"prompt": "no address"}).kind == "tool"  # a fetch without a URL
    assert tool_step("search", {"queries": ["a", "b"]}).query == "a | b"
    assert tool_step("search", {"text": "free words"}).query == "free words"
    step = tool_step("Bash", {"command": "curl https://www.waterqualitydata.us/data/Result/search?huc=12030105"})
    assert (step.kind, step.host) == ("tool", "waterqualitydata.us")
    assert tool_step("Read", "plain").url == "" and math.isnan(tool_step("Read", {}).t)


def test_native_step_takes_url_and_query_from_args():
    step = native_step({"kind": "fetch", "args": {"url": "https://b.org/p"}, "text": "x" * 600}, loc="f:1: step 0")
    assert step.url == "https://b.org/p" and step.host == "b.org"
    assert len(step.text) > EXCERPT_CHARS and step.text.endswith("(100 more characters)")
    assert native_step({"kind": "search", "arguments": {"q": "x"}}, loc="f").query == "x"
    assert native_step({"kind": "answer", "text": None}, loc="f").text == ""


@pytest.mark.parametrize("raw, message", [
    ({"kind": "tool", "tool": 3}, r"f:1: step 2: tool must be a string; found 3$"),
    ({"kind": "answer", "text": ["a"]}, r"f:1: step 2: text must be a string"),
    ({"kind": "tool", "t": float("inf")}, r"f:1: step 2: t \(seconds since the start\) must be a number"),
    ({"kind": "tool", "tokens": True}, r"f:1: step 2: tokens must be a whole number"),
    ({}, r"f:1: step 2: kind must be one of"),
])
def test_native_step_errors_name_the_place(raw, message):
    with pytest.raises(SgrKitError, match=message):
        native_step(raw, loc="f:1: step 2")


def test_excerpt_and_answer():
    assert excerpt("abc") == "abc"
    assert excerpt("a" * 10, limit=4) == "aaaa… (6 more characters)"
    tr = Trajectory("s", "t", 0, (Step("answer", text="first"), Step("message"), Step("answer", text="last")))
    assert tr.answer == "last" and Trajectory("s", "t", 0, ()).answer is None
