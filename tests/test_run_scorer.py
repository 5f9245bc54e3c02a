"""The scorer sgr_bench: sgr-kit's scores in the log, equal to ``sgr-kit score`` on the same answers.

Known answers: the reference scorer's 3x3 case (tests/test_score.py) for one sample; the
metrics' base-problem means by hand.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

pytest.importorskip("inspect_ai")
pytest.importorskip("trafilatura")

from inspect_ai import eval_set  # noqa: E402
from inspect_ai.scorer import SampleScore, Score  # noqa: E402

from scripted import demo_task_file, scripted_model  # noqa: E402
from sgr_kit.aggregate import apply_failure_policy  # noqa: E402
from sgr_kit.cli import main  # noqa: E402
from sgr_kit.errors import SgrKitError  # noqa: E402
from sgr_kit.prepare import load_tasks  # noqa: E402
from inspect_ai.util import registry_info  # noqa: E402
from sgr_kit.run import sgr_bench  # noqa: E402
from sgr_kit.run.scorer import base_mean, score_metadata, score_value, sgr_bench_scorer, variant_mean  # noqa: E402
from sgr_kit.score import score_answer  # noqa: E402
from sgr_kit.trajectories import protocol_flags  # noqa: E402
from webfixture import web_server  # noqa: E402,F401

IDS = ("arxiv_001", "arxiv_001-g", "arxiv_002", "arxiv_002-g")
#: The task's registered name (``sgr_kit/sgr_bench`` when installed; ``sgr_bench`` when the tests run
#: from a checkout's root, which inspect_ai takes for a local folder).
TASK = registry_info(sgr_bench).name


@pytest.fixture
def task_file(tmp_path):
    return demo_task_file(tmp_path, IDS)


def test_the_value_and_metadata_of_one_answer(make_task):
    # the reference scorer's 3x3 case "one non-key field wrong" (tests/test_score.py)
    task = make_task(("id", "a", "b"), rows=[("1", "x", "y"), ("2", "x", "y"), ("3", "x", "y")])
    result = score_answer(task, "1|x|y\n2|x|WRONG\n3|x|y", profile="strict")
    assert score_value(result) == {"item_f1": pytest.approx(8 / 9), "row_f1": pytest.approx(2 / 3), "poa": 1.0}
    meta = score_metadata(result, task, profile="strict")
    assert meta["status"] == "parsed" and meta["lost"] == {"wrong": 1} and meta["profile"] == "strict"
    assert (meta["correct_fields"], meta["gold_fields"], meta["pred_fields"]) == (8, 9, 9)
    failed = score_answer(task, "id|a|b", profile="strict")
    assert score_value(failed) == {"item_f1": 0.0, "row_f1": 0.0, "poa": 0.0}  # the paper counts it as 0
    assert score_metadata(failed, task, profile="strict")["reason"] == "no data row: only a header line"


def _sample(value, base, variant, sample_id):
    return SampleScore(score=Score(value=value), sample_id=sample_id,
                       sample_metadata={"base_id": base, "variant": variant})  # fmt: skip


def test_metrics_average_each_base_problem_first():
    scores = [_sample(1.0, "a", "constraint", "a"), _sample(0.0, "a", "goal", "a-g"),
              _sample(0.4, "b", "constraint", "b"), _sample(math.nan, "c", "goal", "c-g")]  # fmt: skip
    assert base_mean()(scores) == pytest.approx((0.5 + 0.4) / 2)  # base c: only an unscored answer
    assert variant_mean()(scores) == pytest.approx({"constraint": 0.7, "goal": 0.0})


def test_the_scorer_refuses_a_bad_option(task_file):
    with pytest.raises(SgrKitError, match="unknown profile 'loose'|profile"):
        sgr_bench_scorer(str(task_file), profile="loose")
    with pytest.raises(SgrKitError, match="answer: expected one of auto, submit, output; found 'last'"):
        sgr_bench_scorer(str(task_file), answer="last")


def _answers(tasks):
    ref = tasks["arxiv_001"].reference
    header, *rows = ref.splitlines()
    return {"arxiv_001": ref,                                     # perfect
            "arxiv_001-g": "\n".join([header, rows[1], rows[0]]),  # two rows, out of order
            "arxiv_002": header,                                  # a header only: parse failure
            "arxiv_002-g": "NONE"}                                # an empty answer


def test_the_logs_scores_equal_sgr_kit_score_on_the_same_answers(task_file, web_server, tmp_path):
    tasks = load_tasks(task_file)
    answers = _answers(tasks)
    scripts = {t: [("search", {"query": f"{t} records"}), ("submit", {"answer": a})] for t, a in answers.items()}
    models = [scripted_model(tasks, scripts, name="mockllm/alpha"), scripted_model(tasks, scripts, name="mockllm/beta")]
    logs_dir = tmp_path / "logs"
    ok, logs = eval_set(TASK, task_args={"tasks": [str(task_file)], "search_url": web_server.search_url,
                                                         "protocol": {"budget_seconds": 60, "stall_seconds": 30}},
                        model=models, log_dir=str(logs_dir), display="none")  # fmt: skip
    assert ok and len(logs) == 2
    from inspect_ai.log import read_eval_log

    in_log = {}
    for header in logs:
        log = read_eval_log(header.location)
        for s in log.samples:
            in_log[(log.eval.model, s.id)] = (s.scores["sgr_bench"].value, s.scores["sgr_bench"].metadata["status"])
    assert in_log[("mockllm/alpha", "arxiv_002-g")][1] == "empty"
    assert in_log[("mockllm/beta", "arxiv_002")][1] == "parse_failure"

    out = tmp_path / "scores.csv"
    assert main(["score", "--tasks", str(task_file), "--runs", str(logs_dir), "--out", str(out), "--no-progress",
                 "--workers", "1"]) == 0  # fmt: skip
    scores = pd.read_csv(out)
    assert len(scores) == 8 and set(scores["system"]) == {"mockllm/alpha", "mockllm/beta"}
    zero = apply_failure_policy(scores, failure_policy="zero")
    for row in zero.itertuples():
        value, status = in_log[(row.system, row.task_id)]
        assert status == row.status, (row.system, row.task_id)
        assert value == pytest.approx({"item_f1": row.item_f1, "row_f1": row.row_f1, "poa": row.poa})
    # the run kept the protocol: no budget or stall flag
    flags = protocol_flags(logs_dir, tasks, protocol={"budget_seconds": 60, "stall_seconds": 30})
    assert not flags["flag"].isin(["over_budget", "stalled", "benchmark_visited"]).any()


@pytest.mark.slow
def test_the_log_reader_takes_the_submission_as_the_answer(task_file, web_server, tmp_path):
    """A submit call is the answer (no tool outside the protocol); a sample that never submits has none."""
    tasks = load_tasks(task_file)
    scripts = {t: [("search", {"query": "records"}), ("submit", {"answer": tasks[t].reference})] for t in IDS[:3]}
    scripts[IDS[3]] = [("fetch", {"url": web_server.url + "/slow"})]  # never submits: ends at the budget
    protocol = {"budget_seconds": 5, "stall_seconds": None}
    ok, _ = eval_set(TASK, task_args={"tasks": [str(task_file)], "search_url": web_server.search_url,
                                      "protocol": protocol},
                     model=scripted_model(tasks, scripts), log_dir=str(tmp_path / "logs"), display="none")  # fmt: skip
    assert ok
    out = tmp_path / "scores.csv"
    assert main(["score", "--tasks", str(task_file), "--runs", str(tmp_path / "logs"), "--out", str(out),
                 "--no-progress", "--workers", "1"]) == 0  # fmt: skip
    status = pd.read_csv(out).set_index("task_id")["status"].to_dict()
    assert status == {IDS[0]: "parsed", IDS[1]: "parsed", IDS[2]: "parsed", IDS[3]: "missing"}
    flags = protocol_flags(tmp_path / "logs", tasks, protocol=protocol)
    assert flags[["task_id", "flag"]].values.tolist() == [[IDS[3], "over_budget"]]
