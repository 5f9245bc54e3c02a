"""Loading answers: JSONL, CSV and <system>/<task_id>.<ext> folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.load import RunSet, load_runs, read_runs
from sgr_kit.prepare import load_tasks
from sgr_kit.types import Answer

TASKS = ["nvd_001", "nvd_001-g", "census_001"]


def write_jsonl(path: Path, entries: list) -> Path:
    path.write_text("\n".join(e if isinstance(e, str) else json.dumps(e) for e in entries) + "\n", encoding="utf-8")
    return path


def entry(system="s1", task_id="nvd_001", answer="CVE-1|9.8", **extra) -> dict:
    return {"system": system, "task_id": task_id, "answer": answer, **extra}


def test_jsonl_answers_with_repeats_nulls_and_json_answers(tmp_path):
    path = write_jsonl(tmp_path / "runs.jsonl", [
        entry(),
        "",
        entry(repeat=1, answer="  CVE-1|9.8\n"),
        entry(task_id="nvd_001-g", repeat="2", answer=[{"cve_id": "CVE-1", "score": 9.8}]),
        entry(system="s2", answer=None),
    ])
    runs = load_runs(path, tasks=TASKS)
    assert isinstance(runs, RunSet) and all(isinstance(a, Answer) for a in runs)
    assert [(a.system, a.task_id, a.repeat) for a in runs] == [("s1", "nvd_001", 0), ("s1", "nvd_001", 1),
                                                                ("s1", "nvd_001-g", 2)]
    assert runs[1].text == "  CVE-1|9.8\n"  # exactly as given
    assert json.loads(runs[2].text) == [{"cve_id": "CVE-1", "score": 9.8}]
    assert runs[2].source == f"{path}:4"
    assert runs.systems == ("s1", "s2")
    assert runs.nulls == (("s2", "nvd_001", 0, f"{path}:5"),)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("{nope", r"runs\.jsonl:2: not valid JSON"),
        ('["s1", "nvd_001"]', r"runs\.jsonl:2: expected an object with system, task_id, answer; found list"),
        (json.dumps({"system": "s1", "answer": "x"}), r"runs\.jsonl:2: key\(s\) task_id missing"),
        (json.dumps(entry(system="  ")), r"runs\.jsonl:2: system name is empty"),
        (json.dumps(entry(task_id="")), r"runs\.jsonl:2: task_id is empty"),
        (json.dumps(entry(repeat=-1)), r"runs\.jsonl:2: repeat should be a whole number from 0 to 2147483647; found -1"),
        (json.dumps(entry(repeat="first")), r"runs\.jsonl:2: repeat should be a whole number from 0 to 2147483647; found 'first'"),
        (json.dumps(entry(repeat=1.5)), r"runs\.jsonl:2: repeat should be a whole number from 0 to 2147483647; found 1\.5"),
        (json.dumps(entry(repeat=True)), r"runs\.jsonl:2: repeat should be a whole number from 0 to 2147483647; found true"),
        (json.dumps(entry(repeat=3, answer=True)), r"runs\.jsonl:2: answer is true; expected a string, null \(no answer\), "
                                                   r"or a JSON list, object or number"),
        (json.dumps(entry(task_id="nvd_01")), r"runs\.jsonl:2: unknown task id 'nvd_01' \(not among the 3 loaded "
                                              r"tasks\); closest known ids: nvd_001"),
        (json.dumps(entry(repeat=0)), r"runs\.jsonl:2: duplicate answer for system 's1', task nvd_001, repeat 0 "
                                      r"\(first at .*runs\.jsonl:1\)"),
    ],
)
def test_jsonl_errors_name_file_and_line(tmp_path, bad, message):
    path = write_jsonl(tmp_path / "runs.jsonl", [entry(), bad])
    with pytest.raises(SgrKitError, match=message):
        load_runs(path, tasks=TASKS)


def test_unknown_ids_pass_without_tasks(tmp_path):
    runs = load_runs(write_jsonl(tmp_path / "runs.jsonl", [entry(task_id="anything")]))
    assert runs[0].task_id == "anything"


def test_csv_with_multiline_answers_reports_starting_lines(tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text(
        'system,task_id,repeat,answer,notes\n'
        's1,nvd_001,,"cve_id|score\nCVE-1|9.8\nCVE-2|7.5",x\n'
        's1,nvd_001,1,"CVE-1|9.8",\n'
        's2,census_001,0,,\n',
        encoding="utf-8",
    )
    runs = load_runs(path, tasks=TASKS)
    assert [(a.system, a.task_id, a.repeat, a.source) for a in runs] == [
        ("s1", "nvd_001", 0, f"{path}:2"), ("s1", "nvd_001", 1, f"{path}:5"), ("s2", "census_001", 0, f"{path}:6"),
    ]
    assert runs[0].text == "cve_id|score\nCVE-1|9.8\nCVE-2|7.5"
    assert runs[2].text == ""  # an empty cell is an empty answer, not a missing one


def test_csv_errors_name_file_and_line(tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text("system,answer\ns1,x\n", encoding="utf-8")
    with pytest.raises(SgrKitError, match=r"runs\.csv:1: column\(s\) task_id missing from the header"):
        load_runs(path)
    path.write_text('system,task_id,answer\ns1,nvd_001,"a\nb"\ns1,nvd_002,x\ns1,nvd_001,y\n', encoding="utf-8")
    with pytest.raises(SgrKitError, match=r"runs\.csv:5: duplicate answer .* \(first at .*runs\.csv:2\)"):
        load_runs(path)
    path.write_text("system,task_id,answer\ns1,nvd_001,x,extra\n", encoding="utf-8")
    with pytest.raises(SgrKitError, match=r"runs\.csv:2: more cells than header columns"):
        load_runs(path)
    path.write_text("system,task_id,answer,repeat\ns1,nvd_001,x,one\n", encoding="utf-8")
    with pytest.raises(SgrKitError, match=r"runs\.csv:2: repeat should be a whole number from 0 to 2147483647; found 'one'"):
        load_runs(path)


def test_folder_layouts(tmp_path):
    (tmp_path / "s1").mkdir()
    (tmp_path / "s1" / "nvd_001.md").write_text("| cve_id | score |\n|---|---|\n| CVE-1 | 9.8 |\n", encoding="utf-8")
    (tmp_path / "s1" / "nvd_001-g.json").write_text('[{"cve_id": "CVE-1"}]', encoding="utf-8")
    (tmp_path / "s1" / ".DS_Store").write_bytes(b"\x00\xff")
    (tmp_path / "s2" / "census_001").mkdir(parents=True)
    (tmp_path / "s2" / "census_001" / "0.txt").write_text("Adams|12", encoding="utf-8")
    (tmp_path / "s2" / "census_001" / "3.txt").write_text("NONE", encoding="utf-8")
    write_jsonl(tmp_path / "more.jsonl", [entry(system="s3")])
    (tmp_path / "README.md").write_text("answers of three systems", encoding="utf-8")
    runs = load_runs(tmp_path, tasks=TASKS)
    assert sorted((a.system, a.task_id, a.repeat) for a in runs) == [
        ("s1", "nvd_001", 0), ("s1", "nvd_001-g", 0), ("s2", "census_001", 0), ("s2", "census_001", 3),
        ("s3", "nvd_001", 0),
    ]
    by_key = {(a.system, a.task_id, a.repeat): a for a in runs}
    assert by_key[("s1", "nvd_001-g", 0)].text == '[{"cve_id": "CVE-1"}]'
    assert by_key[("s2", "census_001", 3)].source == str(tmp_path / "s2" / "census_001" / "3.txt")


@pytest.mark.parametrize(
    ("relative", "content", "message"),
    [
        ("s1/nvd_001.txt", b"\xff\xfe bad", r"s1/nvd_001\.txt:1: not UTF-8 text"),
        ("s1/nvd_001.docx", b"x", r"s1/nvd_001\.docx: expected an answer file <system>/<task_id>\.<md\|txt\|json>"),
        ("s1/nvd_001/first.md", b"x", r"s1/nvd_001/first\.md: the repeat \(file name\) should be a whole number "
                                      r"from 0 to 2147483647; found 'first'"),
        ("s1/nvd_001/0.docx", b"x", r"s1/nvd_001/0\.docx: expected <system>/<task_id>/<repeat>\.<md\|txt\|json>"),
        ("s1/nvd_999.md", b"x", r"s1/nvd_999\.md: unknown task id 'nvd_999'"),
    ],
)
def test_folder_errors_name_the_file(tmp_path, relative, content, message):
    path = tmp_path / relative
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    with pytest.raises(SgrKitError, match=message):
        load_runs(tmp_path, tasks=TASKS)


def test_folder_duplicate_across_layouts(tmp_path):
    (tmp_path / "s1" / "nvd_001").mkdir(parents=True)
    (tmp_path / "s1" / "nvd_001" / "0.md").write_text("a", encoding="utf-8")
    (tmp_path / "s1" / "nvd_001.md").write_text("b", encoding="utf-8")
    with pytest.raises(SgrKitError, match=r"s1/nvd_001\.md: duplicate answer for system 's1', task nvd_001, repeat 0 "
                                          r"\(first at .*s1/nvd_001/0\.md\)"):
        load_runs(tmp_path)


def test_several_sources_merge_and_clash(tmp_path):
    a = write_jsonl(tmp_path / "a.jsonl", [entry()])
    b = write_jsonl(tmp_path / "b.jsonl", [entry(system="s2")])
    assert [x.system for x in load_runs([a, b])] == ["s1", "s2"]
    with pytest.raises(SgrKitError, match=r"a\.jsonl:1: duplicate answer .*first at .*a\.jsonl:1"):
        load_runs([a, a])


def test_bad_sources(tmp_path):
    with pytest.raises(SgrKitError, match=r"runs source .*nope\.jsonl: no such file or folder"):
        load_runs(tmp_path / "nope.jsonl")
    (tmp_path / "runs.txt").write_text("x", encoding="utf-8")
    with pytest.raises(SgrKitError, match=r"runs source .*runs\.txt: expected a \.jsonl or \.csv file or a folder"):
        load_runs(tmp_path / "runs.txt")


def test_task_ids_checked_against_a_taskset(release_dir, tmp_path):
    tasks = load_tasks(release_dir)
    path = write_jsonl(tmp_path / "runs.jsonl", [entry(task_id="arxiv_historical_title_001-g"),
                                                 entry(task_id="arxiv_historical_title_01")])
    with pytest.raises(SgrKitError, match=r"runs\.jsonl:2: unknown task id 'arxiv_historical_title_01' .*closest "
                                          r"known ids: arxiv_historical_title_001"):
        load_runs(path, tasks=tasks)


def test_jsonl_lines_end_only_at_newline(tmp_path):
    # json.dumps(ensure_ascii=False) writes U+2028 raw; str.splitlines() would cut the record there.
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(entry(answer="CVE-1|9.8\u2028note")) + "\r\n" + json.dumps(entry(task_id="nvd_002"))
                    + "\n", encoding="utf-8")
    runs = load_runs(path)
    assert [a.text for a in runs] == ["CVE-1|9.8\u2028note", "CVE-1|9.8"]
    assert runs[1].source.endswith("runs.jsonl:2")


def test_csv_open_quote_and_short_rows_are_errors(tmp_path):
    open_quote = tmp_path / "q.csv"
    open_quote.write_text('system,task_id,answer\ns1,nvd_001,"CVE-1|9.8\ns1,nvd_002,x\ns1,nvd_003,"y"\n')
    with pytest.raises(SgrKitError, match=r"q.csv:2: not valid CSV"):
        load_runs(open_quote)
    short = tmp_path / "short.csv"
    short.write_text("system,task_id,answer\ns1,nvd_001\n")
    with pytest.raises(SgrKitError, match=r"short.csv:2: fewer cells than header columns \(3\): no answer"):
        load_runs(short)


@pytest.mark.parametrize("name", ["empty.jsonl", "empty.csv", "folder"])
def test_no_answers_at_all_is_an_error(tmp_path, name):
    path = tmp_path / name
    if name == "folder":
        path.mkdir()
    else:
        path.write_text("system,task_id,answer\n" if name.endswith(".csv") else "\n")
    with pytest.raises(SgrKitError, match=f"no answers in .*{name}"):
        load_runs(path)


def test_non_string_answers_are_scored_as_written_with_one_note_per_file(tmp_path):
    path = tmp_path / "runs.jsonl"
    lines = [
        '{"system": "s1", "task_id": "nvd_001", "answer": ["CVE-1|9.80"]}',
        '{"system": "s1", "task_id": "nvd_001-g", "answer": 8.40}',
        '{"system": "s1", "task_id": "census_001", "answer": {"rows": [{"cve_id": "CVE-1", "score": 9.80}]}}',
        '{"system": "s2", "task_id": "nvd_001", "answer": null}',
        '{"system": "s2", "task_id": "census_001", "answer": null}',
    ]
    path.write_text("\n".join(lines) + "\n")
    runs = load_runs(path, tasks=TASKS)
    # the JSON text exactly as written: 9.80 and 8.40 keep their spelling
    assert [a.text for a in runs] == ['["CVE-1|9.80"]', "8.40", '{"rows": [{"cve_id": "CVE-1", "score": 9.80}]}']
    assert runs.notes == (
        f"{path}: 2 answers are null (first at {path}:4); scored as missing",
        f"{path}: 3 answers are a JSON list, object or number, not a string (first at {path}:1); "
        f"scored as the JSON text written in the file",
    )


def test_raw_member_keeps_the_text_of_the_last_duplicate_key():
    from sgr_kit.load.runs import raw_member

    assert raw_member('{"answer": 1, "x": [1, 2], "answer" : [ 3 ]}', "answer") == "[ 3 ]"
    assert raw_member('[1]', "answer") is None


def test_read_runs_reports_every_problem(tmp_path):
    path = write_jsonl(tmp_path / "runs.jsonl", [
        entry(task_id="nvd_01"),
        "{broken",
        entry(),
        entry(),
        entry(system="s2", answer="  "),
        entry(system="s3", answer=None),
    ])
    runs, findings = read_runs(path, tasks=TASKS)
    kinds = [(f.severity, f.kind) for f in findings]
    assert kinds == [("error", "unknown_task"), ("error", "read"), ("error", "duplicate"),
                     ("warning", "empty_answer"), ("info", "answer_type")]
    assert "closest known ids: nvd_001" in findings[0].message and f"{path}:1" in findings[0].message
    assert f"{path}:2: not valid JSON" in findings[1].message
    assert f"{path}:4: duplicate answer" in findings[2].message
    assert len(runs) == 2


def test_a_trajectories_folder_or_file_stands_in_for_runs(tmp_path):
    folder = tmp_path / "trajectories"
    (folder / "s1").mkdir(parents=True)
    (folder / "s1" / "nvd_001.jsonl").write_text(
        json.dumps({"kind": "fetch", "url": "https://nvd.nist.gov/vuln/detail/CVE-1"}) + "\n"
        + json.dumps({"kind": "answer", "text": "CVE-1|9.8"}) + "\n", encoding="utf-8")
    (folder / "s1" / "nvd_001-g.jsonl").write_text(json.dumps({"kind": "search", "query": "q"}) + "\n",
                                                   encoding="utf-8")
    runs = load_runs(folder, tasks=TASKS)
    assert [(a.system, a.task_id, a.repeat, a.text) for a in runs] == [("s1", "nvd_001", 0, "CVE-1|9.8")]
    assert [n[:3] for n in runs.nulls] == [("s1", "nvd_001-g", 0)]  # no answer step: scored missing
    records = write_jsonl(tmp_path / "trajectories.jsonl", [
        {"system": "s2", "task_id": "census_001", "steps": [{"kind": "answer", "text": "a|1"}]}])
    assert [a.text for a in load_runs(records, tasks=TASKS)] == ["a|1"]
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"system": "s2", "task_id": "nvd_002", "steps": []}])
    with pytest.raises(SgrKitError, match=r"bad\.jsonl:1: unknown task id 'nvd_002'"):
        load_runs(bad, tasks=TASKS)


def test_runs_name_their_language(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [
        {"system": "s", "task_id": "t1", "answer": "a"},
        {"system": "s", "task_id": "t1", "answer": "b", "language": "zh"},
        {"system": "s", "task_id": "t2", "answer": None, "language": "ZH"},
    ]) + "\n", encoding="utf-8")
    runs = load_runs(path)
    assert [(a.task_id, a.language) for a in runs] == [("t1", "en"), ("t1", "zh")]  # not a duplicate
    assert runs.languages == ("en", "zh") and runs.null_languages == ("zh",)
    zh = runs.for_language("zh")
    assert [a.text for a in zh] == ["b"] and zh.nulls == runs.nulls and zh.systems == ("s",)
    assert runs.for_language("en").nulls == ()
    csv_path = tmp_path / "runs.csv"
    csv_path.write_text("system,task_id,answer,language\ns,t1,a,zh\ns,t2,b,\n", encoding="utf-8")
    assert [a.language for a in load_runs(csv_path)] == ["zh", "en"]
    csv_path.write_text("system,task_id,answer,language\ns,t1,a,fr\n", encoding="utf-8")
    with pytest.raises(SgrKitError, match=r"runs\.csv:2: language should be one of en, zh; found 'fr'"):
        load_runs(csv_path)


def test_a_goal_answer_without_the_goal_tasks_says_the_goal_variants_were_not_loaded(tmp_path):
    task = {"task_id": "nvd_001", "domain": "NVD", "oracle_answer": "id|n\nA|1", "output_format": "id|n"}
    tasks = write_jsonl(tmp_path / "constraint.jsonl", [task])
    runs = write_jsonl(tmp_path / "runs.jsonl", [{"system": "s", "task_id": "nvd_001-g", "answer": "id|n\nA|1"}])
    with pytest.raises(SgrKitError, match=r"unknown task id 'nvd_001-g'.*its constraint variant nvd_001 is loaded "
                                          r"but no goal-oriented \(-g\) task is"):
        load_runs(runs, tasks=load_tasks(tasks))
