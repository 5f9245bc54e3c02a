"""inspect_ai eval logs (``sgr_kit.trajectories.inspect_log``) on logs written by inspect_ai itself.

Every log here is written by inspect_ai's own ``eval`` (and ``write_eval_log`` for a ``.json``
copy), never by hand: a mock model (``mockllm/model`` with scripted outputs, each carrying its
``ModelUsage``) calls two real tools, or a solver writes the messages and the output itself
(no model call, so no usage). Expected totals come from inspect_ai's own ``model_usage`` of each
sample, read back with inspect_ai's reader, and from the usages the script gave the model.
"""

from __future__ import annotations

import json
import math
import sys
import zipfile
from pathlib import Path

import pytest

from sgr_kit.errors import SgrKitError

inspect_ai = pytest.importorskip("inspect_ai", reason="the optional [inspect] extra (make setup installs it)")

from inspect_ai import Task, eval as inspect_eval  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.log import read_eval_log, read_eval_log_samples, write_eval_log  # noqa: E402
from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, ModelOutput, ModelUsage, get_model  # noqa: E402
from inspect_ai.solver import generate, solver, use_tools  # noqa: E402
from inspect_ai.tool import ToolCall, ToolError, tool  # noqa: E402

from sgr_kit.trajectories.inspect_log import FORMAT, is_inspect_log, read_inspect_log  # noqa: E402
from sgr_kit.trajectories.steps import TOTAL_KEYS  # noqa: E402

MODEL = "mockllm/model"
ANSWER = "arxiv_id|v1_date\n2011.08019|2020-11-16"
EPOCHS = 2


@tool
def web_search():
    async def execute(query: str) -> str:
        """Search the web.

        Args:
            query: What to search for.
        """
        return f"1. [2011.08019] results for {query}"

    return execute


@tool
def fetch():
    async def execute(url: str) -> str:
        """Fetch a page.

        Args:
            url: The page's URL.
        """
        raise ToolError(f"timeout fetching {url}")

    return execute


def usage(k: int) -> ModelUsage:
    """The usage of the k-th scripted call (inspect_ai's convention: input excludes the cache)."""
    return ModelUsage(input_tokens=100 + k, output_tokens=20 + k, total_tokens=120 + 2 * k + 50,
                      input_tokens_cache_read=50, input_tokens_cache_write=k, reasoning_tokens=5 + k,
                      total_cost=0.001 * (k + 1))  # fmt: skip


def scripted_outputs(runs: int) -> list[ModelOutput]:
    outputs = []
    for _ in range(runs):
        calls = [
            ModelOutput.for_tool_call(MODEL, "web_search", {"query": "arXiv cs.CV 2020 Q4 transformer"}),
            ModelOutput.for_tool_call(MODEL, "fetch", {"url": "https://arxiv.org/pdf/2011.08019"}),
            ModelOutput.from_content(MODEL, ANSWER),
        ]
        for k, output in enumerate(calls):
            output.usage = usage(k)
        outputs += calls
    return outputs


@solver
def scripted():
    """Writes the conversation and the output itself: a real log without any model call."""

    async def solve(state, generate):
        call = ToolCall(id="call_1", function="web_search", arguments={"query": "census Boulder County 2020"})
        first = ChatMessageAssistant(content="Searching the census first.", tool_calls=[call], model=MODEL)
        state.messages.append(first)
        state.messages.append(ChatMessageTool(content="Boulder County, Colorado: 330,758", tool_call_id="call_1",
                                              function="web_search"))  # fmt: skip
        state.messages.append(ChatMessageAssistant(content="county|population\nBoulder County|330758", model=MODEL))
        state.output = ModelOutput.from_content(MODEL, "county|population\nBoulder County|330758")
        return state

    return solve


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("inspect")
    samples = [Sample(id="arxiv_001", input="List the cs.CV transformer papers of 2020 Q4.", target=ANSWER)]
    model = get_model(MODEL, custom_outputs=scripted_outputs(EPOCHS))
    task = Task(dataset=samples, solver=[use_tools(web_search(), fetch()), generate()], name="sgr")
    [run] = inspect_eval(task, model=model, epochs=EPOCHS, max_samples=1, log_dir=str(root / "tools"),
                         display="none")  # fmt: skip
    assert run.status == "success", run.error
    json_copy = root / "tools.json"
    write_eval_log(read_eval_log(run.location), str(json_copy), format="json")
    solved = Task(dataset=[Sample(id="census_004", input="Boulder County 2020 population?")], solver=scripted(),
                  name="sgr-solver")  # fmt: skip
    [run2] = inspect_eval(solved, model=MODEL, log_dir=str(root / "solver"), display="none")
    assert run2.status == "success", run2.error
    return {"eval": Path(run.location), "json": json_copy, "solver": Path(run2.location)}


def test_is_inspect_log(logs, tmp_path):
    assert is_inspect_log(logs["eval"]) and is_inspect_log(logs["json"]) and is_inspect_log(logs["solver"])
    other = tmp_path / "x.json"
    other.write_text(json.dumps([{"role": "assistant", "content": "x"}]))
    notes = tmp_path / "y.eval"
    notes.write_text("not a zip")
    archive = tmp_path / "z.eval"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("other.json", "{}")
    jsonl = tmp_path / "t.jsonl"
    jsonl.write_text('{"version": 2, "status": "success", "eval": {}}\n')
    assert not any(is_inspect_log(p) for p in (other, notes, archive, jsonl, tmp_path / "missing.eval"))


@pytest.mark.parametrize("kind", ["eval", "json"])
def test_steps_of_a_tool_calling_run(logs, kind):
    trajectories = list(read_inspect_log(logs[kind]))
    assert [(t.system, t.task_id, t.repeat, t.format) for t in trajectories] == [
        (MODEL, "arxiv_001", epoch, FORMAT) for epoch in range(EPOCHS)]  # fmt: skip
    for tr in trajectories:
        # the mock model writes a line of text beside each tool call: a message step before each
        assert [(s.kind, s.tool, s.host) for s in tr.steps] == [
            ("message", "", ""), ("search", "web_search", ""), ("message", "", ""), ("fetch", "fetch", "arxiv.org"),
            ("answer", "", "")]  # fmt: skip
        assert tr.steps[1].query == "arXiv cs.CV 2020 Q4 transformer"
        assert tr.steps[1].text.startswith("1. [2011.08019]")
        assert tr.steps[3].text.startswith("[error] ") and "timeout fetching" in tr.steps[3].text
        assert tr.answer == ANSWER and sum(s.text == ANSWER for s in tr.steps) == 1
        assert all(s.t >= 0 for s in tr.steps)


@pytest.mark.parametrize("kind", ["eval", "json"])
def test_totals_are_inspects_own_model_usage(logs, kind):
    own = {s.epoch - 1: s.model_usage for s in read_eval_log_samples(str(logs[kind]))}
    for tr in read_inspect_log(logs[kind]):
        [(name, u)] = own[tr.repeat].items()
        assert set(tr.totals) == {*TOTAL_KEYS, "limit"} and tr.totals["limit"] is None  # no limit ended it
        assert tr.totals["input_tokens"] == u.input_tokens + u.input_tokens_cache_read + u.input_tokens_cache_write
        assert tr.totals["cached_input_tokens"] == u.input_tokens_cache_read
        assert tr.totals["output_tokens"] == u.output_tokens
        assert tr.totals["reasoning_tokens"] == u.reasoning_tokens
        assert tr.totals["cost_usd"] == pytest.approx(u.total_cost)
        assert tr.totals["model"] == name == MODEL
        assert tr.totals["seconds"] > 0
        # and what the script gave the model, call by call, is what the steps carry
        given = [usage(k) for k in range(3)]
        calls = [s for s in tr.steps if s.input_tokens is not None]  # each call's usage on its first step
        assert [s.kind for s in calls] == ["message", "message", "answer"]
        assert [s.input_tokens for s in calls] == [g.input_tokens + g.input_tokens_cache_read
                                                   + g.input_tokens_cache_write for g in given]  # fmt: skip
        assert [s.output_tokens for s in calls] == [g.output_tokens for g in given]
        assert sum(s.input_tokens for s in calls) == tr.totals["input_tokens"]


def test_a_solver_written_log_has_steps_and_no_invented_tokens(logs):
    [tr] = list(read_inspect_log(logs["solver"]))
    assert (tr.system, tr.task_id, tr.repeat) == (MODEL, "census_004", 0)
    assert [s.kind for s in tr.steps] == ["message", "search", "answer"]
    assert tr.steps[1].text == "Boulder County, Colorado: 330,758"
    assert tr.answer == "county|population\nBoulder County|330758"
    assert all(s.input_tokens is None and math.isnan(s.t) for s in tr.steps)
    for key in ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens", "cost_usd", "model"):
        assert tr.totals[key] is None  # no model call was made: unknown, never 0
    assert tr.totals["seconds"] >= 0


def _edit_json(source: Path, target: Path, edit) -> Path:
    data = json.loads(source.read_text(encoding="utf-8"))
    edit(data)
    target.write_text(json.dumps(data), encoding="utf-8")
    return target


@pytest.mark.parametrize("edit,expected", [
    (lambda d: d["samples"][0]["model_usage"][MODEL].update(input_tokens=10**30), "input_tokens"),
    (lambda d: d["samples"][0]["model_usage"][MODEL].update(output_tokens=-4), "output_tokens"),
    (lambda d: d["samples"][0]["model_usage"][MODEL].update(total_cost=float("inf")), "total_cost"),
    (lambda d: d["samples"][0].update(messages={"role": "user"}), "messages"),
    (lambda d: d["samples"][0]["messages"][1].update(tool_calls=[["web_search"]]), "tool_calls"),
])  # fmt: skip
def test_hostile_values_give_a_clear_error(logs, tmp_path, edit, expected):
    path = _edit_json(logs["json"], tmp_path / "bad.json", edit)
    with pytest.raises(SgrKitError) as info:
        list(read_inspect_log(path))
    message = str(info.value)
    assert str(path) in message and expected in message, message


def test_huge_counts_name_the_sample_and_field(logs, tmp_path):
    path = _edit_json(logs["json"], tmp_path / "big.json",
                      lambda d: d["samples"][0]["model_usage"][MODEL].update(reasoning_tokens=2**64))  # fmt: skip
    with pytest.raises(SgrKitError, match=r"big\.json: sample arxiv_001 epoch 1: .*reasoning_tokens"):
        list(read_inspect_log(path))


def test_a_lone_surrogate_is_refused_by_inspect_ai_with_a_clear_error(logs, tmp_path):
    def edit(d):
        d["samples"][0]["messages"][-1]["content"] = "a\ud800|1"  # json.dumps writes it as an escape

    path = _edit_json(logs["json"], tmp_path / "sur.json", edit)
    with pytest.raises(SgrKitError, match=r"sur\.json: a sample inspect_ai cannot read"):
        list(read_inspect_log(path))


def test_not_a_log_and_missing_inspect_ai(tmp_path, monkeypatch, logs):
    bad = tmp_path / "bad.eval"
    bad.write_bytes(b"PK\x03\x04 broken")
    with pytest.raises(SgrKitError, match="bad.eval: not a readable inspect_ai eval log"):
        list(read_inspect_log(bad))
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)
    with pytest.raises(SgrKitError, match=r"sgr-kit\[inspect\]"):
        list(read_inspect_log(logs["eval"]))


# --- logs of older inspect_ai versions (issue 29.2-29.4, 29.8; 28.7) ------------------------------------------------

OLD = Path(__file__).resolve().parent / "fixtures" / "trajectories" / "inspect"


def old_log(name: str, folder: Path) -> Path:
    """A real ``.eval`` (a zip of the JSON members) of the fixture ``name``, written in ``folder``."""
    source = OLD / name
    path = folder / f"{name}.eval"
    with zipfile.ZipFile(path, "w") as archive:
        for member in sorted(source.rglob("*.json")):
            archive.write(member, member.relative_to(source).as_posix())
    return path


def members(name: str, sample: str) -> dict:
    return json.loads((OLD / name / "samples" / f"{sample}_epoch_1.json").read_text(encoding="utf-8"))


def test_an_old_openai_log_counts_cache_reads_once(tmp_path):
    """inspect_ai 0.3.73 and gpt-4o-mini: input_tokens held the cache reads (total = input + output)."""
    said: list[str] = []
    from sgr_kit.trajectories import iter_trajectories

    found = {tr.task_id: tr for tr in iter_trajectories(old_log("0.3.73-openai", tmp_path), notes=said.append)}
    sample = members("0.3.73-openai", "arxiv_001")
    calls = [e["output"]["usage"] for e in sample["events"] if e["event"] == "model"]
    assert all(u["total_tokens"] == u["input_tokens"] + u["output_tokens"] for u in calls)
    tr = found["arxiv_001"]
    assert tr.totals["input_tokens"] == sum(u["input_tokens"] for u in calls) == 3681  # not 3681 + 3456
    assert tr.totals["cached_input_tokens"] == sum(u["input_tokens_cache_read"] for u in calls)
    steps = [s for s in tr.steps if s.input_tokens is not None]
    assert [s.input_tokens for s in steps] == [u["input_tokens"] for u in calls]  # per step once too
    assert any("cache reads inside or outside input_tokens decided per call (inspect_ai 0.3.73): 3 by total_tokens"
               in n for n in said)  # fmt: skip


def test_cache_semantics_by_version_and_provider_where_a_call_has_no_total():
    from sgr_kit.trajectories.inspect_log import cache_inside

    call = {"fresh": 12, "read": 900, "write": 0, "output": 5, "reasoning": None, "total": 0}
    assert cache_inside(call, model="openai/gpt-4o-mini", version=(0, 3, 183)) == (True, "version")
    assert cache_inside(call, model="openai/gpt-4o-mini", version=(0, 3, 184)) == (False, "version")
    assert cache_inside(call, model="google/gemini-2.5-pro", version=(0, 3, 207)) == (True, "version")
    assert cache_inside(call, model="google/gemini-2.5-pro", version=(0, 3, 208)) == (False, "version")
    assert cache_inside(call, model="anthropic/claude-3-5-haiku", version=(0, 3, 72)) == (False, "provider")
    # the call's own total decides before the version: Google counts thoughts apart from output
    google = {"fresh": 5000, "read": 4096, "write": None, "output": 40, "reasoning": 300, "total": 5340}
    assert cache_inside(google, model="google/gemini-2.5-pro", version=(0, 3, 300)) == (True, "total_tokens")


def test_calls_answered_from_inspects_local_cache_are_not_paid(tmp_path):
    """An empty model_usage, every model event ``cache: "read"``: 0 paid, said in a note."""
    from sgr_kit.trajectories import trajectory_usage

    said: list[str] = []
    row = trajectory_usage(old_log("0.3.73-openai", tmp_path), task_id=None).set_index("task_id").loc["census_004"]
    assert (row["input_tokens"], row["output_tokens"], row["cost_usd"]) == (0, 0, 0.0)
    from sgr_kit.trajectories import iter_trajectories

    list(iter_trajectories(tmp_path / "0.3.73-openai.eval", notes=said.append))
    assert any("1 model call(s) answered from inspect_ai's local response cache (1,421 tokens)" in n for n in said)


def test_per_step_tokens_and_times_without_message_ids(tmp_path):
    """inspect_ai 0.3.72 wrote no message ids: calls matched to messages by text and tool calls, in order."""
    sample = members("0.3.72-anthropic", "census_004")
    assert all("id" not in m for m in sample["messages"])
    [tr] = read_inspect_log(old_log("0.3.72-anthropic", tmp_path))
    usage = [e["output"]["usage"] for e in sample["events"] if e["event"] == "model"]
    firsts = [s for s in tr.steps if s.input_tokens is not None]
    assert [s.kind for s in firsts] == ["message", "answer"]
    # Anthropic's input_tokens never held the cache: reads and writes added (the second call has no total)
    assert [s.input_tokens for s in firsts] == [u["input_tokens"] + u["input_tokens_cache_read"]
                                                + u["input_tokens_cache_write"] for u in usage]  # fmt: skip
    assert sum(s.input_tokens for s in firsts) == tr.totals["input_tokens"]
    assert [s.t for s in tr.steps] == [0.0, 0.0, pytest.approx(3.25)]


def test_the_answer_of_the_react_agent_is_its_last_submit_call(tmp_path):
    """A log written by inspect_ai itself: its ReAct agent calls web_search, then submit(answer).

    inspect_ai (0.3.285) sets ``output.completion`` from the submitted answer (``answer_only``: the
    answer alone), which is then the answer; logs whose completion is empty (older versions, a
    runner that keeps the submit call) take the last submit call's ``answer``.
    """
    from inspect_ai.agent import AgentSubmit, react

    outputs = [ModelOutput.for_tool_call(MODEL, "web_search", {"query": "arXiv cs.CV 2020 Q4 transformer"}),
               ModelOutput.for_tool_call(MODEL, "submit", {"answer": ANSWER})]
    for k, output in enumerate(outputs):
        output.usage = usage(k)  # (mockllm counts tokens itself otherwise, with an encoding it downloads)
    task = Task(dataset=[Sample(id="arxiv_001", input="List the papers.")],
                solver=react(tools=[web_search()], submit=AgentSubmit(answer_only=True)), name="sgr-react")
    [run] = inspect_eval(task, model=get_model(MODEL, custom_outputs=outputs), log_dir=str(tmp_path), display="none")
    assert run.status == "success", run.error
    [tr] = read_inspect_log(run.location)
    assert tr.answer == ANSWER and sum(s.kind == "answer" for s in tr.steps) == 1
    assert ("search", "web_search") in [(s.kind, s.tool) for s in tr.steps]
    # an old log whose output.completion is empty: the answer from submit, said once
    said: list[str] = []
    from sgr_kit.trajectories import iter_trajectories

    found = {t.task_id: t for t in iter_trajectories(old_log("0.3.73-openai", tmp_path), notes=said.append)}
    assert found["arxiv_001"].answer == "arxiv_id|v1_date\n2011.08019|2020-11-16"
    assert [(s.kind, s.tool) for s in found["arxiv_001"].steps][-2:] == [("tool", "submit"), ("answer", "")]
    assert sum("submit" in n for n in said) == 1


def test_several_samples_in_a_system_folder_are_each_a_trajectory(tmp_path):
    from sgr_kit.trajectories import iter_trajectories

    folder = tmp_path / "runs" / "GPT-4o mini"
    folder.mkdir(parents=True)
    old_log("0.3.73-openai", folder)
    found = [(t.system, t.task_id, t.repeat) for t in iter_trajectories(tmp_path / "runs", notes=lambda _: None)]
    assert found == [("GPT-4o mini", "arxiv_001", 0), ("GPT-4o mini", "census_004", 0)]


def test_a_damaged_eval_says_it_is_not_a_readable_log(tmp_path):
    from sgr_kit.trajectories import load_trajectories

    good = old_log("0.3.73-openai", tmp_path)
    cut = tmp_path / "cut.eval"
    cut.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    text = tmp_path / "text.eval"
    text.write_text('{"kind": "answer", "text": "a"}\n', encoding="utf-8")
    for path in (cut, text):
        with pytest.raises(SgrKitError, match=rf"{path.name}: not a readable inspect_ai eval log \(not a zip archive"):
            load_trajectories(path)
        runs = tmp_path / "runs" / "s"
        runs.mkdir(parents=True, exist_ok=True)
        (runs / path.name).write_bytes(path.read_bytes())
        with pytest.raises(SgrKitError, match=rf"{path.name}: not a readable inspect_ai eval log"):
            load_trajectories(tmp_path / "runs")
        (runs / path.name).unlink()
