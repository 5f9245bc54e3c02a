"""Hostile values in every field of every input format: the only outcomes are a result or an SgrKitError with a location.

One table, :data:`FORMATS`, lists each format sgr-kit reads from a user's file with the fields
a record of it has, a writer (a file with one hostile record among good ones) and its reader.
The hostile values are JSON texts (integers of more digits than Python reads, ``10**30``,
``1e400``, ``NaN``/``Infinity``, lone surrogate escapes, nesting 100,000 levels deep, lists,
objects, booleans and null where text or a number belongs, empty and control-character
strings, ``"²"``) for the JSON formats, and cell texts for the CSV formats (the same, with
lone surrogates written as the bytes no UTF-8 decoder accepts).

Invariants, for every format, field and value:

- reading gives a result or raises :class:`~sgr_kit.errors.SgrKitError`, nothing else;
- the error names the file, and for formats with lines the line of the hostile record;
- a result can be written to parquet (no lone surrogate, every whole number fits its column).

The named cases of the issue run for every field of every format as plain tests
(:func:`test_named_hostile_values_in_every_field`); hypothesis then mixes generated values in
(:func:`test_generated_hostile_values_in_every_field`). A format is added by one row of
:data:`FORMATS` (trajectory formats included: a writer and a reader).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import FUZZ_EXAMPLES, build_task
from sgr_kit.cli import main
from sgr_kit.errors import SgrKitError
from sgr_kit.load import load_audit, load_runs, load_scores
from sgr_kit.load.labels import load_labels, load_sheet
from sgr_kit.prepare import load_tasks
from sgr_kit.prepare.pairing import read_pairing_file

DEMO = Path(__file__).resolve().parents[1] / "data" / "demo"
DEMO_TASKS = [json.loads(line) for line in (DEMO / "constraint.jsonl").read_text(encoding="utf-8").splitlines()[:2]]

#: The issue's cases, as JSON text.
NAMED_JSON = {
    "integer of 5000 digits": "1" + "0" * 5000,
    "negative integer of 4400 digits": "-" + "9" * 4400,
    "10**30": str(10**30),
    "1e400": "1e400",
    "-1e400": "-1e400",
    "NaN": "NaN",
    "Infinity": "Infinity",
    "lone surrogate": '"\\ud800"',
    "lone low surrogate in text": '"x\\udfff y"',
    "superscript two": '"\\u00b2"',
    "nested 100,000 lists": "[" * 100_000 + "]" * 100_000,
    "nested 100,000 objects": '{"a": ' * 100_000 + "1" + "}" * 100_000,
    "nested 150 lists": "[" * 150 + "]" * 150,
    "list": '["a", "b"]',
    "object": '{"a": 1}',
    "true": "true",
    "null": "null",
    "empty string": '""',
    "control characters": '"\\u0000\\u001b[31m\\u202e"',
    "-1": "-1",
    "1.5": "1.5",
}
#: The issue's cases, as CSV cell text (a lone surrogate becomes bytes that are not UTF-8).
NAMED_CELLS = {
    "integer of 5000 digits": "1" + "0" * 5000,
    "99999999999999999999999": "99999999999999999999999",
    "10**30": str(10**30),
    "1e400": "1e400",
    "NaN": "NaN",
    "inf": "inf",
    "lone surrogate": "x\ud800",
    "superscript two": "²",
    "arabic-indic three": "\u0663",
    "1_000": "1_000",
    "empty": "",
    "control characters": "\x00\x1b[31m\u202e",
    "quote and newline": 'a"\nb,c',
    "-1": "-1",
    "1.5": "1.5",
    "list": '["a"]',
}


# ------------------------------------------------------------------------------------------ writers


def _json_record(record: dict[str, Any], field: str, hostile: str) -> str:
    """A JSON object's text with ``field``'s value replaced by the raw JSON text ``hostile``."""
    members = {**{k: json.dumps(v) for k, v in record.items()}, field: hostile}
    return "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in members.items()) + "}"


def _jsonl_writer(records: list[dict[str, Any]], name: str) -> Callable[[Path, str, str, int], Path]:
    def write(folder: Path, field: str, hostile: str, line: int) -> Path:
        lines = [_json_record(r, field, hostile) if n == line else json.dumps(r) for n, r in enumerate(records, 1)]
        path = folder / name
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    return write


def _json_writer(records: list[dict[str, Any]], name: str, *, single: bool = False) -> Callable[..., Path]:
    def write(folder: Path, field: str, hostile: str, line: int) -> Path:
        texts = [_json_record(r, field, hostile) if n == line else json.dumps(r) for n, r in enumerate(records, 1)]
        path = folder / name
        path.write_text(texts[0] if single else "[\n" + ",\n".join(texts) + "\n]\n", encoding="utf-8")
        return path

    return write


def _csv_writer(header: list[str], rows: list[dict[str, str]], name: str) -> Callable[..., Path]:
    def write(folder: Path, field: str, hostile: str, line: int) -> Path:
        buffer = io.StringIO(newline="")
        writer = csv.writer(buffer)  # "\r\n" line ends: a cell holding "\r" or "\n" is quoted
        writer.writerow(header)
        for n, row in enumerate(rows, 1):
            writer.writerow([hostile if (n == line and column == field) else row.get(column, "") for column in header])
        path = folder / name
        path.write_bytes(buffer.getvalue().encode("utf-8", "surrogatepass"))  # a lone surrogate: not UTF-8
        return path

    return write


def _scores_csv() -> tuple[list[str], list[dict[str, str]]]:
    from sgr_kit.score import score_runs
    from sgr_kit.types import Answer

    task = build_task(("id", "v"), rows=[("a", "1"), ("b", "2")], task_id="t_001")
    table = score_runs([task], [Answer("s1", "t_001", 0, "a|1\nb|3"), Answer("s2", "t_001", 0, "a|1")])
    text = table.to_csv(index=False)
    reader = csv.DictReader(io.StringIO(text))
    return list(reader.fieldnames or []), list(reader)


# ------------------------------------------------------------------------------------------ readers


def _tasks(path: Path) -> Any:
    return load_tasks(path).frame()


def _labels(path: Path) -> Any:
    return load_labels(path)


def _pairing(path: Path) -> Any:
    return pd.DataFrame([(k, *v) for k, v in read_pairing_file(path).items()], columns=["task_id", "base_id", "at"])


def _runs(path: Path) -> Any:
    return pd.DataFrame([dataclasses.asdict(a) for a in load_runs(path)])


@dataclass(frozen=True)
class Format:
    """One input format: its fields, a writer of a file with one hostile record and its reader."""

    name: str
    kind: str  # "json" (hostile values are JSON text) or "csv" (cell text)
    fields: tuple[str, ...]
    write: Callable[[Path, str, str, int], Path]  # (folder, field, hostile, hostile record's number from 1) -> file
    read: Callable[[Path], Any]  # the file's reader; its result must be writable to parquet
    records: int  # how many records the writer writes (the hostile one is one of them)
    lines: bool = True  # errors name file:line (False: the file)


_RUN = {"system": "s", "task_id": "nvd_001", "answer": "a|1", "repeat": 0, "language": "en"}
_RUNS = [_RUN, {**_RUN, "system": "t", "repeat": 1}]
_PAIRS = [{"task_id": "a_001-g", "base_id": "a_001"}, {"task_id": "b_001-g", "base_id": "b_001"}]
_LABEL = {"system": "s", "task_id": "t_001", "repeat": "0", "annotator": "ann", "label": "correct", "note": "n",
          "labelled_at": "2026-01-01T00:00:00+00:00"}  # fmt: skip
_SHEET = {"system": "s", "task_id": "t_001", "repeat": "0", "slot": "1", "family": "f", "variant": "constraint"}
_AUDIT = {"system": "s", "task_id": "t_001", "base_id": "t_001", "family": "f", "label": "correct", "synthetic": "true"}
_SCORES_HEADER, _SCORES_ROWS = _scores_csv()
# one field of each kind (the count columns share one check; every one of them costs time)
_SCORES_FIELDS = ("system", "task_id", "variant", "gold_rows", "repeat", "status", "item_f1", "poa", "pairs", "reason",
                  "synthetic", "language")  # fmt: skip
assert set(_SCORES_FIELDS) <= set(_SCORES_HEADER)
_TASK_FIELDS = ("task_id", "domain", "oracle_answer", "instruction", "output_format", "metadata", "rubric",
                "oracle_output_cardinality")  # fmt: skip

#: Every format in the table: (format, writer) rows; add a row to cover a new reader.
FORMATS = [
    Format("runs JSONL", "json", tuple(_RUN), _jsonl_writer(_RUNS, "runs.jsonl"), _runs, 2),
    Format("runs CSV", "csv", tuple(_RUN), _csv_writer(list(_RUN), [{k: str(v) for k, v in r.items()} for r in _RUNS],
                                                       "runs.csv"), _runs, 2),  # fmt: skip
    Format("tasks JSONL", "json", _TASK_FIELDS, _jsonl_writer(DEMO_TASKS, "tasks.jsonl"), _tasks, 2),
    Format("task JSON file", "json", _TASK_FIELDS, _json_writer(DEMO_TASKS[:1], "arxiv_001.json", single=True),
           _tasks, 1, lines=False),  # fmt: skip
    Format("tasks JSON list", "json", _TASK_FIELDS, _json_writer(DEMO_TASKS, "tasks.json"), _tasks, 2, lines=False),
    Format("pairing JSONL", "json", ("task_id", "base_id"), _jsonl_writer(_PAIRS, "pairing.jsonl"), _pairing, 2),
    Format("pairing JSON", "json", ("task_id", "base_id"), _json_writer(_PAIRS, "pairing.json"), _pairing, 2,
           lines=False),  # fmt: skip
    Format("pairing CSV", "csv", ("task_id", "base_id"), _csv_writer(["task_id", "base_id"], _PAIRS, "pairing.csv"),
           _pairing, 2),  # fmt: skip
    Format("label file", "csv", tuple(_LABEL), _csv_writer(list(_LABEL), [_LABEL, {**_LABEL, "system": "t"}],
                                                           "labels.csv"), _labels, 2),  # fmt: skip
    Format("annotation sheet", "csv", tuple(_SHEET), _csv_writer(list(_SHEET), [_SHEET, {**_SHEET, "system": "t"}],
                                                                 "sheet.csv"), load_sheet, 2),  # fmt: skip
    Format("audit file", "csv", tuple(_AUDIT), _csv_writer(list(_AUDIT), [_AUDIT, {**_AUDIT, "system": "t"}],
                                                           "audit.csv"), load_audit, 2),  # fmt: skip
    Format("scores CSV", "csv", _SCORES_FIELDS, _csv_writer(_SCORES_HEADER, _SCORES_ROWS, "scores.csv"), load_scores,
           len(_SCORES_ROWS)),  # fmt: skip
]
_BY_NAME = {f.name: f for f in FORMATS}


def check(fmt: Format, folder: Path, field: str, hostile: str, line: int) -> str:
    """Write and read one hostile file; returns ``"read"`` or ``"error"`` after checking the invariants."""
    path = fmt.write(folder, field, hostile, line)
    try:
        result = fmt.read(path)
    except SgrKitError as exc:
        message = str(exc)
        assert str(path) in message, f"{fmt.name}, {field}: the error names no file: {message[:300]}"
        if fmt.lines:
            at = line + (fmt.kind == "csv")  # a CSV file's records start on line 2
            assert f"{path}:{at}" in message, f"{fmt.name}, {field}: the error names no line {at}: {message[:300]}"
        return "error"
    # whatever was read can be written: no lone surrogate, whole numbers that fit their columns
    frame = result if isinstance(result, pd.DataFrame) else pd.DataFrame(result)
    frame.to_parquet(io.BytesIO())
    return "read"


@pytest.mark.parametrize("fmt", FORMATS, ids=[f.name for f in FORMATS])
def test_named_hostile_values_in_every_field(tmp_path, fmt):
    named = NAMED_JSON if fmt.kind == "json" else NAMED_CELLS
    outcomes = {}
    for field in fmt.fields:
        for case, hostile in named.items():
            folder = tmp_path / f"{len(outcomes)}"
            folder.mkdir()
            outcomes[field, case] = check(fmt, folder, field, hostile, line=fmt.records)
    # a test that can fail: the cases a field cannot hold are refused (not read as something else)
    refused = {case for (field, case), outcome in outcomes.items() if outcome == "error"}
    assert {"integer of 5000 digits"} <= refused if fmt.kind == "json" else {"lone surrogate"} <= refused


def test_named_cases_that_must_be_refused(tmp_path):
    """Where a field is a whole number or a name, the issue's values are errors naming file, line and field."""
    cases = [
        ("runs JSONL", "repeat", str(10**30), r"runs\.jsonl:2: repeat should be a whole number from 0 to 2147483647; "
                                              r"found 1000000000000000000000000000000"),
        ("runs JSONL", "repeat", '"\\u00b2"', r"runs\.jsonl:2: repeat should be a whole number .*; found '²'"),
        ("runs JSONL", "repeat", "1e400", r"runs\.jsonl:2: repeat should be .*; found a number too large \(infinity\)"),
        ("runs JSONL", "system", '["a"]', r"runs\.jsonl:2: system should be a string; found a list \[\"a\"\]"),
        ("runs JSONL", "task_id", "true", r"runs\.jsonl:2: task_id should be a string; found true"),
        ("runs JSONL", "answer", "1" + "0" * 5000, r"runs\.jsonl:2: holds an integer of more than 4300 digits"),
        ("runs JSONL", "answer", "[" * 100_000 + "]" * 100_000, r"runs\.jsonl:2: JSON nested too deeply"),
        ("runs CSV", "repeat", "²", r"runs\.csv:3: repeat should be a whole number .*; found '²'"),
        ("runs CSV", "repeat", "99999999999999999999999", r"runs\.csv:3: repeat should be a whole number"),
        ("label file", "repeat", "99999999999999999999999",
         r"labels\.csv:3: column 'repeat' should be a whole number from 0 to 2147483647; found '9{23}'"),
        ("annotation sheet", "slot", "10" + "0" * 30, r"sheet\.csv:3: column 'slot' should be a whole number"),
        ("scores CSV", "repeat", str(10**30), r"scores\.csv:3: column 'repeat' holds '1000+'; expected an integer"),
        ("scores CSV", "repeat", "1e400", r"scores\.csv:3: column 'repeat' holds '1e400'"),
        ("pairing JSONL", "base_id", '{"a": 1}', r"pairing\.jsonl:2: base_id should be a string; found an object"),
        ("tasks JSONL", "rubric", '"' + "[" * 5000 + '"', r"tasks\.jsonl:2: task arxiv_002: key 'rubric' \(a JSON-"),
    ]
    for n, (name, field, hostile, message) in enumerate(cases):
        fmt = _BY_NAME[name]
        folder = tmp_path / str(n)
        folder.mkdir()
        path = fmt.write(folder, field, hostile, fmt.records)
        with pytest.raises(SgrKitError, match=message):
            fmt.read(path)


# ------------------------------------------------------------------------------------------ generated

_ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=12)  # lone surrogates included
_SPECIAL = ["", "²", "-1", "0", "en", "zh", "correct", "\x00", "\u202e", "1e400", "NaN", "9" * 40]
_PY = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.integers(10**18, 10**40), st.floats(),
              _ANY_TEXT, st.sampled_from(_SPECIAL)),  # fmt: skip
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
HOSTILE_JSON = st.one_of(_PY.map(json.dumps), st.sampled_from(sorted(NAMED_JSON.values())))
HOSTILE_CELL = st.one_of(_ANY_TEXT, st.sampled_from(_SPECIAL), st.sampled_from(sorted(NAMED_CELLS.values())),
                         st.integers().map(str), st.floats().map(str))  # fmt: skip


@settings(max_examples=max(FUZZ_EXAMPLES // 7, 50))
@given(data=st.data())
@pytest.mark.parametrize("fmt", FORMATS, ids=[f.name for f in FORMATS])
def test_generated_hostile_values_in_every_field(tmp_path_factory, fmt, data):
    field = data.draw(st.sampled_from(fmt.fields), label="field")
    hostile = data.draw(HOSTILE_JSON if fmt.kind == "json" else HOSTILE_CELL, label="value")
    line = data.draw(st.integers(1, fmt.records), label="record")
    check(fmt, tmp_path_factory.mktemp("hostile"), field, hostile, line)


# ------------------------------------------------------------------------------------------ folders


@pytest.mark.parametrize(
    ("relative", "message"),
    [
        (f"s/nvd_001/{10**30}.md", r"s/nvd_001/1000+\.md: the repeat \(file name\) should be a whole number"),
        ("s/nvd_001/².md", r"s/nvd_001/²\.md: the repeat \(file name\) should be a whole number .*found '²'"),
        ("s/nvd_001/-1.md", r"s/nvd_001/-1\.md: the repeat \(file name\) should be a whole number"),
    ],
)
def test_runs_folder_repeats_out_of_range_name_the_file(tmp_path, relative, message):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "nvd_002.md").write_text("a|1", encoding="utf-8")
    path = tmp_path / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("a|1", encoding="utf-8")
    with pytest.raises(SgrKitError, match=message):
        load_runs(tmp_path)


def test_runs_folder_names_that_are_not_utf8_are_errors(tmp_path):
    name = os.fsdecode(b"sys\xff")  # a file name no UTF-8 decoder accepts: a lone surrogate in Python
    (tmp_path / name).mkdir()
    (tmp_path / name / "nvd_001.md").write_text("a|1", encoding="utf-8")
    with pytest.raises(SgrKitError, match=r"sys\ufffd: the name is not UTF-8 text"):
        load_runs(tmp_path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_runs_folder_skips_fifos_and_sockets_unread(tmp_path):
    import socket

    (tmp_path / "s" / "nvd_002").mkdir(parents=True)
    (tmp_path / "s" / "nvd_001.md").write_text("a|1", encoding="utf-8")
    os.mkfifo(tmp_path / "s" / "nvd_003.md")  # opening it would wait for a writer forever
    os.mkfifo(tmp_path / "s" / "nvd_002" / "0.md")
    os.mkfifo(tmp_path / "fifo.csv")
    with socket.socket(socket.AF_UNIX) as sock:
        try:
            sock.bind(str(tmp_path / "s" / "nvd_004.md"))
        except OSError:  # a path too long for a socket: the FIFOs still test it
            pass
        runs = load_runs(tmp_path)
    assert [(a.system, a.task_id) for a in runs] == [("s", "nvd_001")]
    note = next(n for n in runs.notes if "neither a file nor a folder" in n)
    assert "skipped unread" in note and str(tmp_path / "fifo.csv") in note and "nvd_003.md" in note
    fifo = tmp_path / "alone.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(SgrKitError, match=r"alone\.jsonl: neither a file nor a folder"):
        load_runs(fifo)


# ------------------------------------------------------------------------------------------ the command line


@pytest.mark.parametrize(
    ("field", "hostile", "shown"),
    [
        ("repeat", str(10**30), r"runs\.jsonl:2: repeat should be a whole number"),
        ("repeat", '"\\u00b2"', r"runs\.jsonl:2: repeat should be a whole number"),
        ("answer", "1" + "0" * 5000, r"runs\.jsonl:2: holds an integer of more than 4300 digits"),
        ("system", '{"a": ' * 100_000 + "1" + "}" * 100_000, r"runs\.jsonl:2: JSON nested too deeply"),
        ("task_id", '["arxiv_001"]', r"runs\.jsonl:2: task_id should be a string; found a list"),
    ],
)
def test_cli_score_and_validate_report_hostile_runs_without_a_traceback(tmp_path, capsys, field, hostile, shown):
    runs = [{"system": "s", "task_id": "arxiv_001", "answer": "a", "repeat": 0},
            {"system": "s", "task_id": "arxiv_002", "answer": "a", "repeat": 0}]  # fmt: skip
    path = _jsonl_writer(runs, "runs.jsonl")(tmp_path, field, hostile, 2)
    tasks = str(DEMO / "constraint.jsonl")
    code = main(["score", "--tasks", tasks, "--runs", str(path), "--out", str(tmp_path / "s.csv"), "--no-progress"])
    err = capsys.readouterr().err
    assert code != 0 and "Traceback" not in err
    assert "sgr-kit: error:" in err
    assert re.search(shown, err), err[:500]
    assert not (tmp_path / "s.csv").exists()
    code = main(["validate", "--tasks", tasks, "--runs", str(path)])
    out = capsys.readouterr().out
    assert code == 1 and re.search(shown, out), out[-800:]


def test_cli_agreement_on_a_label_file_with_a_huge_repeat(tmp_path, capsys):
    path = _BY_NAME["label file"].write(tmp_path, "repeat", "99999999999999999999999", 2)
    other = tmp_path / "other.csv"
    other.write_text(path.read_text(encoding="utf-8").replace(",ann,", ",bob,"), encoding="utf-8")
    code = main(["agreement", str(path), str(other), "--n-boot", "10"])
    err = capsys.readouterr().err
    assert code != 0 and "Traceback" not in err
    assert f"sgr-kit: error: {path}:3: column 'repeat' should be a whole number from 0 to 2147483647" in err
