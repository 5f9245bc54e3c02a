"""Reading trajectories: the documented format in a JSONL file and in folders; streaming; errors."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.schema import STEP_COLUMNS, STEP_KINDS
from sgr_kit.trajectories import is_trajectory_source, iter_trajectories, load_trajectories, trajectory_answers


def write_lines(path: Path, objects: list) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objects), encoding="utf-8")
    return path


def record(system="s1", task_id="census_001", repeat=None, steps=None, **extra) -> dict:
    steps = steps if steps is not None else [
        {"kind": "search", "tool": "web_search", "query": "census county poverty 2020", "t": 0.0, "tokens": 30},
        {"kind": "fetch", "tool": "fetch", "url": "https://data.census.gov/table?q=S1701", "text": "table", "t": 2},
        {"kind": "tool", "tool": "python", "args": {"code": "print(1)"}},
        {"kind": "message", "text": "Composing the table."},
        {"kind": "answer", "text": "county|rate\nBeaufort County|16.1"},
    ]
    out = {"system": system, "task_id": task_id, "steps": steps, **extra}
    if repeat is not None:
        out["repeat"] = repeat
    return out


def test_jsonl_file_gives_the_tidy_steps_table(tmp_path):
    path = write_lines(tmp_path / "t.jsonl", [record(), "", record(system="s2", repeat=1)])
    steps = load_trajectories(path)
    assert list(steps.columns) == list(STEP_COLUMNS)
    assert {c: str(steps[c].dtype) for c in steps.columns} == {c: str(pd.Series([], dtype=d).dtype)
                                                              for c, d in STEP_COLUMNS.items()}
    assert len(steps) == 10 and steps["step"].tolist() == [0, 1, 2, 3, 4] * 2
    assert steps["repeat"].tolist() == [0] * 5 + [1] * 5
    assert set(steps["kind"]) <= set(STEP_KINDS)
    first = steps.iloc[:5]
    assert first["host"].tolist() == ["", "data.census.gov", "", "", ""]
    assert first["query"].tolist()[0] == "census county poverty 2020"
    assert first["t"].tolist()[:2] == [0.0, 2.0] and first["tokens"].isna().tolist() == [False] + [True] * 4


def test_a_record_answer_becomes_the_last_step_when_the_steps_have_none(tmp_path):
    path = write_lines(tmp_path / "t.jsonl", [record(steps=[{"kind": "search", "query": "q"}], answer="a|1")])
    (tr,) = iter_trajectories(path)
    assert [s.kind for s in tr.steps] == ["search", "answer"] and tr.answer == "a|1"


def test_the_answer_is_kept_whole_and_other_texts_are_cut(tmp_path):
    long = "row|" * 400
    path = write_lines(tmp_path / "t.jsonl", [record(steps=[{"kind": "message", "text": long},
                                                            {"kind": "answer", "text": long}])])
    steps = load_trajectories(path)
    assert steps.loc[1, "text"] == long
    assert steps.loc[0, "text"].startswith(long[:500]) and steps.loc[0, "text"].endswith("(1100 more characters)")


def test_folder_of_step_files_with_and_without_repeats(tmp_path):
    root = tmp_path / "runs"
    write_lines(root / "s1" / "census_001.jsonl", record()["steps"])
    write_lines(root / "s1" / "census_001-g" / "0.jsonl", [{"kind": "answer", "text": "x"}])
    write_lines(root / "s1" / "census_001-g" / "2.jsonl", [{"kind": "search", "query": "q"}])
    write_lines(root / "s2" / "census_001.jsonl", [record(system="s2", task_id="census_001")])  # one record
    (root / "s2" / ".hidden.jsonl").write_text("not json", encoding="utf-8")
    found = [(t.system, t.task_id, t.repeat, len(t.steps), t.answer) for t in iter_trajectories(root)]
    assert found == [("s1", "census_001", 0, 5, "county|rate\nBeaufort County|16.1"),
                     ("s1", "census_001-g", 0, 1, "x"), ("s1", "census_001-g", 2, 1, None),
                     ("s2", "census_001", 0, 5, "county|rate\nBeaufort County|16.1")]


def test_a_record_file_that_contradicts_its_place_is_an_error(tmp_path):
    path = write_lines(tmp_path / "runs" / "s1" / "census_001.jsonl", [record(task_id="census_002")])
    with pytest.raises(SgrKitError, match=rf"{path.name}:1: task_id is 'census_002' but the file's place"):
        load_trajectories(tmp_path / "runs")


@pytest.mark.parametrize("bad, message", [
    ({"kind": "browse"}, r"step 1: kind must be one of 'search', .*; found 'browse'"),
    ({"kind": "fetch"}, r"step 1: a fetch step needs a url"),
    ({"kind": "search", "query": " "}, r"step 1: a search step needs a query"),
    ({"kind": "tool", "t": -1}, r"step 1: t \(seconds since the start\) must be a number >= 0 or null; found -1"),
    ({"kind": "tool", "tokens": 1.5}, r"step 1: tokens must be a whole number >= 0 or null; found 1.5"),
    ({"kind": "tool", "args": "x"}, r"step 1: args must be an object"),
    ("fetch", r"step 1: expected a step object with a kind"),
])
def test_a_malformed_step_names_file_line_and_step(tmp_path, bad, message):
    path = write_lines(tmp_path / "t.jsonl", [record(), record(task_id="census_002",
                                                             steps=[{"kind": "search", "query": "q"}, bad])])
    with pytest.raises(SgrKitError, match=rf"t\.jsonl:2: {message}"):
        load_trajectories(path)


def test_a_malformed_step_line_in_a_folder_names_its_line(tmp_path):
    write_lines(tmp_path / "runs" / "s" / "t_001.jsonl", [{"kind": "search", "query": "q"}, "{oops",
                                                          {"kind": "answer", "text": "a"}])
    with pytest.raises(SgrKitError, match=r"t_001\.jsonl:2: not valid JSON"):
        load_trajectories(tmp_path / "runs")
    write_lines(tmp_path / "runs" / "s" / "t_001.jsonl", [{"kind": "search", "query": "q"}, {"kind": "pdf"}])
    with pytest.raises(SgrKitError, match=r"t_001\.jsonl:2: step 1: a pdf step needs a url"):
        load_trajectories(tmp_path / "runs")


@pytest.mark.parametrize("lines, message", [
    ([{"task_id": "t", "steps": []}], r"t\.jsonl:1: system is missing or empty"),
    ([{"system": "s", "task_id": "t", "steps": {}}], r"t\.jsonl:1: steps must be a list"),
    ([{"system": "s", "task_id": "t"}], r"t\.jsonl:1: expected a trajectory record with steps"),
    ([{"system": "s", "task_id": "t", "steps": [], "repeat": -1}], r"t\.jsonl:1: repeat should be an integer"),
    ([record(), record()], r"t\.jsonl:2: duplicate trajectory for system 's1', task census_001, repeat 0 "
                           r"\(first at .*t\.jsonl:1\)"),
    (["[1, 2]"], r"t\.jsonl: record 0: expected a trajectory record \(an object with steps or messages\); found int"),
    ([record(), "[1, 2]"], r"t\.jsonl:2: expected a JSON object; found list"),
])
def test_bad_records_are_errors_naming_the_line(tmp_path, lines, message):
    path = write_lines(tmp_path / "t.jsonl", lines)
    with pytest.raises(SgrKitError, match=message):
        load_trajectories(path)


def test_bad_sources_and_files_are_errors(tmp_path):
    with pytest.raises(SgrKitError, match=r"no such file or folder"):
        load_trajectories(tmp_path / "nothing.jsonl")
    (tmp_path / "t.csv").write_text("a\n", encoding="utf-8")
    with pytest.raises(SgrKitError, match=r"expected a \.jsonl or \.json file of trajectory records \(or an agent's .*\) or a folder; found '\.csv'"):
        load_trajectories(tmp_path / "t.csv")
    (tmp_path / "runs" / "s").mkdir(parents=True)
    (tmp_path / "runs" / "s" / "t_001.md").write_text("a|1", encoding="utf-8")
    with pytest.raises(SgrKitError, match=r"t_001\.md: expected a trajectory file <system>/<task_id>\.jsonl"):
        load_trajectories(tmp_path / "runs")
    (tmp_path / "runs" / "s" / "t_001.md").unlink()
    (tmp_path / "runs" / "s" / "t_001.jsonl").write_text("\n", encoding="utf-8")
    with pytest.raises(SgrKitError, match=r"t_001\.jsonl: empty"):
        load_trajectories(tmp_path / "runs")
    write_lines(tmp_path / "runs" / "s" / "t_001.jsonl", [{"id": 1}])
    with pytest.raises(SgrKitError, match=r"t_001\.jsonl:1: expected a trajectory line: a step \(with kind\)"):
        load_trajectories(tmp_path / "runs")
    (tmp_path / "runs" / "s" / "t_001.jsonl").write_bytes(b'{"kind": "search", "query": "q"}\n\xff\xfe\n')
    with pytest.raises(SgrKitError, match=r"t_001\.jsonl:2: not UTF-8 text"):
        load_trajectories(tmp_path / "runs")


def test_reading_streams_one_trajectory_at_a_time(tmp_path):
    # the first trajectory is yielded before the broken second line is read
    path = write_lines(tmp_path / "t.jsonl", [record(), "{broken"])
    found = iter_trajectories(path)
    first = next(found)
    assert first.task_id == "census_001"
    with pytest.raises(SgrKitError, match=r"t\.jsonl:2: not valid JSON"):
        next(found)


def test_an_empty_source_gives_an_empty_table_with_the_columns(tmp_path):
    (tmp_path / "t.jsonl").write_text("", encoding="utf-8")
    steps = load_trajectories(tmp_path / "t.jsonl")
    assert steps.empty and list(steps.columns) == list(STEP_COLUMNS)


def test_answers_and_detection(tmp_path):
    path = write_lines(tmp_path / "t.jsonl", [record(), record(task_id="census_002", steps=[])])
    assert [a[:4] for a in trajectory_answers(path)] == [("s1", "census_001", 0, "county|rate\nBeaufort County|16.1"),
                                                         ("s1", "census_002", 0, None)]
    runs = write_lines(tmp_path / "runs.jsonl", [{"system": "s", "task_id": "t", "answer": "a"}])
    folder = tmp_path / "runs"
    write_lines(folder / "s" / "t.jsonl", [{"kind": "answer", "text": "a"}])
    answers = tmp_path / "answers"
    (answers / "s").mkdir(parents=True)
    (answers / "s" / "t.md").write_text("a", encoding="utf-8")
    assert [is_trajectory_source(p) for p in (path, runs, folder, answers, tmp_path / "none")] == \
        [True, False, True, False, False]


# --- hostile input: nothing but SgrKitError escapes the readers -------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from conftest import examples  # noqa: E402

KEYS = ["kind", "type", "role", "steps", "messages", "system", "task_id", "repeat", "url", "query", "text", "t",
        "tokens", "args", "tool", "message", "content", "tool_calls", "function", "name", "arguments", "input",
        "id", "tool_use_id", "result", "duration_ms", "usage", "answer", "timestamp", "tool_call_id"]
VALUES = ["search", "fetch", "pdf", "tool", "message", "answer", "assistant", "user", "result", "system",
          "tool_use", "tool_result", "text", "https://a.org/x", "http://[::1", "{\"url\": 1", "WebFetch", "Bash",
          "2026-01-01T00:00:00Z", "not a time"]
JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 10**6), st.floats(allow_nan=True), st.sampled_from(VALUES),
              st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(KEYS), inner, max_size=6)),
    max_leaves=25,
)
LINES = st.lists(st.one_of(JSON.map(json.dumps), st.sampled_from(["{", "", "[]", "\x00", "null"])), max_size=6)


@settings(max_examples=examples(150), suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(lines=LINES)
def test_hostile_lines_give_a_table_or_an_sgrkit_error(tmp_path, lines):
    folder = tmp_path / "fuzz"
    path = folder / "s" / "t_001.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
    record = tmp_path / "records.jsonl"
    record.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
    for source in (folder, record):
        try:
            steps = load_trajectories(source)
        except SgrKitError:
            continue
        assert list(steps.columns) == list(STEP_COLUMNS) and set(steps["kind"]) <= set(STEP_KINDS)
