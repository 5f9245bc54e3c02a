"""Hostile input, fuzzed: loaders, parsers and the scorer never fail in any other way than an SgrKitError.

Property-based tests (hypothesis) over the task loader, the answer parsers and the scorer, on
generated tables and on mutations of the demo's answers: binary junk, lone surrogates and
control characters, right-to-left marks, Markdown that only looks like a table, NONE hidden in
prose, CSV with mismatched quotes, deeply nested HTML and JSON. Then the extreme sizes, as
plain tests: 10 MB of text, 100,000 rows, one row of 10,000 cells.

The invariants: no exception escapes ``score_answer``; every answer gets a status; metrics stay
in [0, 1] (NaN exactly for the statuses without metrics); counts stay consistent; and no answer
text makes scoring fail (``scorer_error`` exists for the scorer's own faults, and a fuzzed
answer that reaches it is a bug). File readers raise nothing but ``SgrKitError``.

Example counts follow the hypothesis profile (tests/conftest.py: ``ci`` by default and in
``make test``, ``dev`` (a fifth) in ``make test-fast``, ``HYPOTHESIS_PROFILE=local`` for ten times more).
"""

from __future__ import annotations

import json
import math
import random
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import FUZZ_EXAMPLES, build_task
from sgr_kit.errors import SgrKitError
from sgr_kit.load import load_runs, load_scores
from sgr_kit.parse import parse_answer
from sgr_kit.prepare import load_tasks, validate
from sgr_kit.rules import Rules, TaskRules
from sgr_kit.schema import STATUSES
from sgr_kit.score import prepare_task, score_answer

DEMO = Path(__file__).resolve().parents[1] / "data" / "demo"
PROFILES = ("strict", "paper")
FUZZ = settings(max_examples=FUZZ_EXAMPLES)
SMALL = settings(max_examples=max(FUZZ_EXAMPLES // 3, 50))

#: Pieces hostile text is made of: table syntax, markup, NONE, escapes and invalid Unicode.
PIECES = [
    "|", "||", " | ", "\t", ",", ";", '"', "'", "\n", "\r\n", "\r", "\n\n", "```", "```csv\n", "NONE", "none",
    "**NONE**", "None.", "<table>", "</table>", "<tr>", "</tr>", "<td>", "</td>", "<th>", "<tbody>", "[", "]",
    "{", "}", '{"id": ', '[{"a": 1}', "[]", "\\|", "|---|---|", ":---:", "1,234.50", "+8.40", "1e999999",
    "NaN", "Infinity", "-0", "[x](http://a)", "[x](", "*", "**", "`", "\x00", "\x07", "\x1b[31m", "\x7f",
    "\u200b", "\u200f", "\u202e", "\u2028", "\u2029", "\ufeff", "\u00a0", "\u3000", "\uff5c", chr(0xD800),
    chr(0xDFFF), "\U0001f600", "e\u0301", "\u0627\u0644", "id", "value", "name", "Here is the table:",
    "No qualifying records were found.", "There are no matching rows, but:", "2019-10-06", "Oct 6, 2019",
    "doi:10.1000/x", "arXiv:1910.02550", "45%", "n/a",
]  # fmt: skip
_TEXT = st.text(st.characters(exclude_categories=()), max_size=12)  # any code point, lone surrogates included
HOSTILE = st.lists(st.one_of(st.sampled_from(PIECES), _TEXT), max_size=40).map("".join)


@pytest.fixture(scope="module")
def demo():
    tasks = load_tasks(DEMO / "constraint.jsonl", DEMO / "goal.jsonl")
    answers: dict[str, list[str]] = {}
    for line in (DEMO / "runs.jsonl").read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        answers.setdefault(entry["task_id"], []).append(entry["answer"])
    # a spread of schemas: every fifth task, both variants' references being the same
    ids = [t for i, t in enumerate(tasks) if i % 5 == 0]
    prepared = {p: {t: prepare_task(tasks[t], profile=p) for t in ids} for p in PROFILES}
    return prepared, {t: answers[t] for t in ids}


# mutations of a real answer text ------------------------------------------------------------
def _insert(draw, text: str) -> str:
    at = draw(st.integers(0, len(text)))
    return text[:at] + draw(HOSTILE) + text[at:]


def _delete(draw, text: str) -> str:
    a = draw(st.integers(0, len(text)))
    return text[:a] + text[a + draw(st.integers(0, 40)) :]


def _lines(draw, text: str) -> str:
    lines = text.split("\n")
    how = draw(st.sampled_from(["shuffle", "repeat", "reverse", "drop", "fence", "none_in_prose"]))
    if how == "shuffle":
        lines = draw(st.permutations(lines))
    elif how == "repeat" and lines:
        i = draw(st.integers(0, len(lines) - 1))
        lines[i:i] = [lines[i]] * draw(st.integers(1, 30))
    elif how == "reverse":
        lines = lines[::-1]
    elif how == "drop" and lines:
        del lines[draw(st.integers(0, len(lines) - 1))]
    elif how == "fence":
        lines = ["```"] + lines + draw(st.sampled_from([["```"], []]))
    else:
        lines.insert(draw(st.integers(0, len(lines))), "I checked twice; the answer may be NONE, or not.")
    return "\n".join(lines)


def _separators(draw, text: str) -> str:
    old, new = draw(st.sampled_from([("|", "\t"), ("|", ","), ("|", ";"), ("\n", ","), ("|", "||"), (",", '",')]))
    return text.replace(old, new)


def _wrap(draw, text: str) -> str:
    kind = draw(st.sampled_from(["html", "json", "json_rows", "quote", "nested_html", "nested_json"]))
    if kind == "html":
        rows = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in ln.split("|")) + "</tr>" for ln in text.split("\n"))
        return f"<table>{rows}</table>"
    if kind == "json":
        return json.dumps(text.split("\n"))
    if kind == "json_rows":
        return json.dumps([ln.split("|") for ln in text.split("\n")], ensure_ascii=draw(st.booleans()))
    if kind == "quote":
        return "\n".join('"' + ln for ln in text.split("\n"))
    depth = draw(st.integers(1, 300))
    if kind == "nested_html":
        return "<table><tr><td>" * depth + text + "</td></tr></table>" * draw(st.integers(0, depth))
    return "[" * depth + json.dumps(text) + "]" * draw(st.integers(0, depth))


_MUTATIONS = [_insert, _delete, _lines, _separators, _wrap]


@st.composite
def mutated_answers(draw, answers: dict[str, list[str]]):
    task_id = draw(st.sampled_from(sorted(answers)))
    text = draw(st.sampled_from(answers[task_id]))
    for _ in range(draw(st.integers(1, 4))):
        text = draw(st.sampled_from(_MUTATIONS))(draw, text)
    return task_id, text


def check_result(result) -> None:
    """The invariants every scored answer keeps."""
    assert result.status in STATUSES
    assert result.status != "scorer_error", f"an answer text made scoring fail: {result.reason}"
    metrics = (result.item_f1, result.row_f1, result.poa)
    if result.status in ("parsed", "empty"):
        assert all(0.0 <= x <= 1.0 for x in metrics), metrics
    else:
        assert all(math.isnan(x) for x in metrics) and result.reason
    assert 0 <= result.correct_fields <= min(result.gold_fields, result.pred_fields)
    assert 0 <= result.correct_rows <= min(result.gold_rows, result.pred_rows)
    assert 0 <= result.correct_pairs <= result.pairs
    k = result.gold_fields // result.gold_rows if result.gold_rows else 0
    if result.status != "missing":
        assert len(result.cells) == result.pred_fields + (result.gold_rows - result.shared_keys) * k
    repr(result)  # one line, whatever the cells hold


@FUZZ
@given(data=st.data(), profile=st.sampled_from(PROFILES))
def test_mutated_demo_answers_always_get_a_status(demo, data, profile):
    prepared, answers = demo
    task_id, text = data.draw(mutated_answers(answers))
    check_result(score_answer(prepared[profile][task_id], text))


@FUZZ
@given(data=st.data(), text=HOSTILE, profile=st.sampled_from(PROFILES))
def test_hostile_text_always_gets_a_status(demo, data, text, profile):
    prepared, _ = demo
    task_id = data.draw(st.sampled_from(sorted(prepared[profile])))
    check_result(score_answer(prepared[profile][task_id], text))


class _quiet:
    """Ignore the warnings preparing a generated task may give (they are tested elsewhere)."""

    def __enter__(self):
        import warnings

        self._catch = warnings.catch_warnings()
        self._catch.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc):
        return self._catch.__exit__(*exc)


# generated tables, with column types, units and user rules -----------------------------------
_CELL = st.one_of(st.sampled_from(PIECES), st.text(st.characters(exclude_categories=()), max_size=6),
                  st.integers(-10**6, 10**6).map(str), st.decimals(allow_nan=False, places=3).map(str))  # fmt: skip
_FIELD = st.sampled_from([
    {}, {"type": "integer"}, {"type": "decimal"}, {"type": "id_list"}, {"uppercase": True},
    {"type": "decimal", "units": {"mg/L": {}, "g/L": {"scale_num": 1000}}}, {"aliases": {"a": "b", "|": "x"}},
])  # fmt: skip


@st.composite
def generated(draw):
    k = draw(st.integers(1, 5))
    columns = tuple(f"c{j}" for j in range(k))
    n = draw(st.integers(1, 6))
    rows = [tuple([f"k{i}"] + [draw(_CELL) for _ in range(k - 1)]) for i in range(n)]
    fields = {c: draw(_FIELD) for c in columns[1:]}
    answer_rows = [tuple(draw(_CELL) if draw(st.booleans()) else c for c in row) for row in rows]
    answer_rows = draw(st.permutations(answer_rows))[: draw(st.integers(0, n + 1))]
    answer_rows += [tuple(draw(_CELL) for _ in range(draw(st.integers(0, k + 2)))) for _ in range(draw(st.integers(0, 2)))]
    answer = "\n".join("|".join(r) for r in answer_rows)
    rules = None
    if k > 1 and draw(st.booleans()):
        column = draw(st.sampled_from(columns[1:]))
        kind = draw(st.sampled_from(["integer", "decimal", "string", "id_list"]))
        tolerance = ((column, draw(st.decimals(0, 5, places=2))),) if kind in ("integer", "decimal") else ()
        rules = Rules(entries=(("*", TaskRules(types=((column, kind),), tolerance=tolerance)),))
    return columns, rows, fields, answer, rules


@FUZZ
@given(table=generated(), profile=st.sampled_from(PROFILES))
def test_generated_tables_with_types_units_and_rules(table, profile):
    columns, rows, fields, answer, rules = table
    task = build_task(columns, rows=rows, header=False, fields=fields)
    try:
        with _quiet():
            prepared = prepare_task(task, profile=profile, rules=rules)
    except SgrKitError:
        return  # a reference that cannot be scored (repeated keys...) is refused, with a message
    check_result(score_answer(prepared, answer))
    check_result(score_answer(prepared, task.reference))


@SMALL
@given(text=HOSTILE, k=st.integers(1, 6), separator=st.sampled_from([None, ",", ";"]), profile=st.sampled_from(PROFILES))
def test_parsers_return_a_table_status_for_any_text(text, k, separator, profile):
    from sgr_kit.types import Schema

    schema = Schema(tuple(f"c{j}" for j in range(k)), ("c0",), record_separator=separator)
    parsed = parse_answer(text, schema, profile=profile)
    assert parsed.status in ("parsed", "empty", "parse_failure")
    assert (parsed.status == "parsed") == bool(parsed.rows)


# files: tasks, runs, scores ----------------------------------------------------------------
_JSON_VALUE = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), HOSTILE),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(HOSTILE, inner, max_size=3)),
    max_leaves=8,
)


@st.composite
def task_records(draw):
    record = {
        "task_id": draw(st.one_of(st.sampled_from(["a_001", "a_001-g", "../x", "/abs/x", "a/b", "", " "]), HOSTILE)),
        "domain": draw(st.one_of(st.sampled_from(["NVD", "ARXIV", "??"]), HOSTILE)),
        "oracle_answer": draw(st.one_of(HOSTILE, st.sampled_from(["id|n\nA|1\nB|2", "NONE", ""]))),
        "output_format": draw(st.one_of(st.just("id|n"), HOSTILE)),
        "oracle_output_cardinality": draw(st.one_of(st.integers(-2, 5), st.none(), HOSTILE)),
        "rubric": draw(st.one_of(
            st.just({}), st.just({"columns": ["id", "n"], "fields": {"n": {"type": "integer"}}}),
            st.dictionaries(st.sampled_from(["columns", "row_key", "fields", "record_separator"]), _JSON_VALUE),
            HOSTILE,
        )),  # fmt: skip
        "metadata": draw(st.one_of(st.just({}), _JSON_VALUE)),
    }
    for key in draw(st.lists(st.sampled_from(sorted(record)), max_size=2)):
        record.pop(key, None)
    return record


@SMALL
@given(records=st.lists(task_records(), min_size=1, max_size=4), junk=st.binary(max_size=200))
def test_task_loader_raises_only_sgrkit_errors(tmp_path_factory, records, junk):
    folder = tmp_path_factory.mktemp("tasks")
    path = folder / "tasks.jsonl"
    lines = [json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = validate(path)  # every problem is a finding, never an exception
    report.text()
    try:
        with _quiet():
            tasks = load_tasks(path)
    except SgrKitError:
        pass
    else:
        for task in tasks.values():
            for profile in PROFILES:
                try:
                    check_result(score_answer(prepare_task(task, profile=profile), task.reference))
                except SgrKitError:
                    pass
    (folder / "junk.jsonl").write_bytes(junk)
    with pytest.raises(SgrKitError, match="junk.jsonl"):
        load_tasks(folder / "junk.jsonl")


@SMALL
@given(body=st.one_of(st.binary(max_size=300), HOSTILE.map(lambda t: t.encode("utf-8", "surrogatepass"))),
       suffix=st.sampled_from([".jsonl", ".csv"]))  # fmt: skip
def test_runs_loader_raises_only_sgrkit_errors(tmp_path_factory, body, suffix):
    path = tmp_path_factory.mktemp("runs") / f"runs{suffix}"
    head = b"system,task_id,answer\n" if suffix == ".csv" else b'{"system": "s", "task_id": "t", "answer": "a"}\n'
    path.write_bytes(head + body)
    try:
        runs = load_runs(path)
    except SgrKitError:
        return
    for answer in runs:
        answer.text.encode("utf-8")  # every answer can be written to an output file


@SMALL
@given(cut=st.integers(0, 4000), junk=st.one_of(st.binary(max_size=40), st.sampled_from([b'"', b",", b"\n", b"abc"])),
       suffix=st.sampled_from([".csv", ".parquet"]))  # fmt: skip
def test_scores_reader_raises_only_sgrkit_errors(scores_bytes, cut, junk, suffix):
    data, folder = scores_bytes[suffix], scores_bytes["folder"]
    cut = min(cut, len(data))
    path = folder / f"mutated{suffix}"
    path.write_bytes(data[:cut] + junk + data[cut + len(junk) :])
    try:
        table = load_scores(path)
    except SgrKitError:
        return
    assert table[["item_f1", "row_f1", "poa"]].stack().dropna().between(0, 1).all()


@pytest.fixture(scope="module")
def scores_bytes(tmp_path_factory):
    from sgr_kit.output import write_table
    from sgr_kit.score import score_runs
    from sgr_kit.types import Answer

    task = build_task(("id", "v"), rows=[("a", "1"), ("b", "2")], task_id="t_001")
    runs = [Answer(f"s{i}", "t_001", 0, "a|1\nb|3") for i in range(8)] + [Answer("s9", "t_001", 0, "x")]
    table = score_runs([task], runs)
    folder = tmp_path_factory.mktemp("scores-source")
    files = {s: write_table(table, folder / f"scores{s}").read_bytes() for s in (".csv", ".parquet")}
    return {**files, "folder": folder}


# extreme sizes ------------------------------------------------------------------------------
def _extreme_cases(k: int, reference: str) -> dict[str, str]:
    rng = random.Random(7)
    row = "|".join(f"c{j}" for j in range(k))
    prose = "The portal returned nothing useful for this query, so I kept looking.\n" * 70_000
    return {
        "binary junk (1 MB)": bytes(rng.randrange(256) for _ in range(1_000_000)).decode("latin-1"),
        "10 MB of text around the table": prose + reference + "\n" + prose,
        "100,000 rows": "\n".join(f"v{i}|" + row for i in range(100_000)),
        "one row of 10,000 cells": "|".join(f"c{j}" for j in range(10_000)),
        "deeply nested HTML": "<table>" * 20_000 + "<tr><td>a</td></tr>" + "</table>" * 20_000,
        "deeply nested JSON": "[" * 100_000 + "]" * 100_000,
        "deeply nested JSON objects": '{"a":' * 50_000 + "1" + "}" * 50_000,
        "Markdown that only looks like a table": "| not | a |\n| table |\n|---|\n" + "| prose | with | pipes |\n" * 50,
        "NONE hidden in prose": "After checking, the answer might be NONE but I also found\nNONE of these | were | right",
        "CSV with mismatched quotes": '"id,"name\n"a,b"",c\n' * 2000,
        "[[[[ (quadratic for the link regex)": "x|" + "[" * 200_000,
        "right-to-left and control characters": "\u202e" + row + "\x00\x1b\u200f\n" + "\u2028".join(["a|b"] * 100),
    }


@pytest.mark.slow
@pytest.mark.parametrize("profile", PROFILES)
def test_extreme_inputs_get_a_status(demo, profile):
    prepared, _ = demo
    task = next(iter(prepared[profile].values()))
    for name, text in _extreme_cases(len(task.schema.columns), task.task.reference).items():
        start = time.perf_counter()
        result = score_answer(task, text)
        check_result(result)
        print(f"{profile} {name}: {result.status} in {time.perf_counter() - start:.2f} s")
