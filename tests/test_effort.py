"""Effort per answer and system, the score-cost frontier, and scores with and without protocol flags."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

from sgr_kit.breakdowns.effort import (
    EFFORT_COLUMNS, FLAG_MEANS_COLUMNS, FRONTIER_COLUMNS, answer_effort, cost_axis, effort_means, effort_wide,
    flag_means, score_cost_frontier,
)  # fmt: skip
from sgr_kit.errors import SgrKitError
from sgr_kit.stats import bootstrap_means

SYSTEMS = ("cheap", "dear")


def _scores(n_problems: int = 12, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for system in SYSTEMS:
        for p in range(n_problems):
            for variant, suffix in (("constraint", ""), ("goal", "-g")):
                for repeat in (0, 1) if p % 3 == 0 else (0,):
                    f1 = float(rng.uniform(0, 1))
                    rows.append({"system": system, "task_id": f"p{p:02d}{suffix}", "base_id": f"p{p:02d}",
                                 "variant": variant, "repeat": repeat, "status": "parsed", "item_f1": f1,
                                 "row_f1": f1 / 2, "poa": 1.0, "synthetic": False})  # fmt: skip
    return pd.DataFrame(rows)


def _usage(scores: pd.DataFrame, seed: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = len(scores)
    dear = (scores["system"] == "dear").to_numpy()
    out = scores[["system", "task_id", "repeat"]].copy()
    out["steps"] = rng.integers(3, 30, n)
    out["tool_calls"] = out["steps"] - 1
    out["searches"] = rng.integers(1, 5, n)
    out["fetches"] = out["tool_calls"] - out["searches"]
    out["pdfs"] = 0
    out["other_tools"] = 0
    out["hosts"] = rng.integers(1, 6, n)
    out["input_tokens"] = rng.integers(10_000, 90_000, n) * np.where(dear, 3, 1)
    out["cached_input_tokens"] = out["input_tokens"] // 2
    out["output_tokens"] = rng.integers(500, 5_000, n)
    out["reasoning_tokens"] = out["output_tokens"] // 3
    out["seconds"] = rng.uniform(30, 900, n)
    out["cost_usd"] = rng.gamma(2.0, 0.05, n) * np.where(dear, 4, 1)
    return out


def test_answer_effort_puts_each_answers_effort_beside_its_scores():
    scores = _scores(4)
    usage = _usage(scores).iloc[:-1]  # one answer without a trajectory
    usage = usage.assign(seconds=np.where(np.arange(len(usage)) == 0, np.nan, usage["seconds"]),
                         output_tokens=np.where(np.arange(len(usage)) == 1, np.nan, usage["output_tokens"]))
    steps = pd.DataFrame({"system": usage["system"].iloc[0], "task_id": usage["task_id"].iloc[0], "repeat":
                          usage["repeat"].iloc[0], "t": [3.0, 41.5]})  # fmt: skip
    table = answer_effort(scores, usage, steps)
    assert len(table) == len(scores)  # the answer without a trajectory is kept, its effort unknown
    last = table.iloc[-1]
    assert not last["has_trajectory"] and last["seconds_source"] == "unknown" and np.isnan(last["steps"])
    assert table["has_trajectory"].iloc[:-1].all()
    table = table.iloc[:-1]
    first = table.iloc[0]
    assert first["seconds"] == 41.5 and first["seconds_source"] == "last_step"
    assert (table["seconds_source"].iloc[1:] == "reported").all()
    assert pd.isna(table["tokens"].iloc[1])  # output unknown: the total is unknown, never a partial sum
    assert table["tokens"].iloc[2] == usage["input_tokens"].iloc[2] + usage["output_tokens"].iloc[2]
    assert (table["cost_source"] == "reported").all()
    with pytest.raises(SgrKitError, match=r"usage: \(system, task_id, repeat\) cheap, p00, 0 appears more than once"):
        answer_effort(scores, pd.concat([usage, usage.iloc[:1]]))


def test_effort_means_are_means_per_task_with_the_projects_bootstrap():
    scores = _scores()
    usage = _usage(scores)
    lone = (usage["system"] == "cheap") & (usage["task_id"] == "p01")  # a task of one repeat
    usage.loc[lone, "cost_usd"] = np.nan  # its cost unknown
    table = answer_effort(scores, usage)
    means = effort_means(table, n_boot=1000, seed=3)
    assert list(means.columns) == list(EFFORT_COLUMNS)
    # the value: repeats averaged per task first, then tasks (computed here with pandas)
    for system in SYSTEMS:
        part = table[table["system"] == system]
        for quantity in ("steps", "cost_usd", "tokens", "seconds"):
            expected = part.groupby("task_id")[quantity].mean().mean()
            row = means[(means["system"] == system) & (means["quantity"] == quantity)].iloc[0]
            assert row["value"] == pytest.approx(expected)
    cost = means[(means["quantity"] == "cost_usd")].set_index("system")
    n_tasks = table.groupby("system")["task_id"].nunique()
    assert cost.loc["cheap", "n_tasks"] == n_tasks["cheap"] - 1 and cost.loc["dear", "n_tasks"] == n_tasks["dear"]
    assert cost.loc["cheap", "note"].startswith(f"cost_usd unknown for 1 of {n_tasks['cheap']} tasks: left out of "
                                                "its mean")
    assert cost.loc["dear", "note"] == ""
    # the intervals are bootstrap_means' own, on the quantity as a metric, with the same seed
    frame = table.assign(item_f1=table["seconds"] / 100, row_f1=np.nan, poa=np.nan)
    reference = bootstrap_means(frame, metrics="item_f1", failure_policy="exclude", n_boot=1000, seed=3)
    reference = reference[reference["variant"] == "overall"].set_index("system")
    seconds = means[means["quantity"] == "seconds"].set_index("system")
    for column in ("value", "ci_low", "ci_high"):
        np.testing.assert_allclose(seconds[column], reference.loc[seconds.index, column], rtol=1e-12)
    scores_ref = bootstrap_means(table, metrics="item_f1", n_boot=1000, seed=3)
    scores_ref = scores_ref[scores_ref["variant"] == "overall"].set_index("system")
    item = means[means["quantity"] == "item_f1"].set_index("system")
    np.testing.assert_allclose(item[["value", "ci_low", "ci_high"]], scores_ref.loc[item.index, ["value", "ci_low",
                                                                                                "ci_high"]])


def test_effort_intervals_agree_with_an_independent_cluster_bootstrap():
    """A plain percentile bootstrap over base problems, written here, with Hesterberg's expanded level."""
    scores = _scores(20, seed=5)
    table = answer_effort(scores, _usage(scores, seed=6))
    means = effort_means(table, quantities=("cost_usd",), method="percentile", n_boot=20_000, seed=0)
    rng = np.random.default_rng(12345)
    for system in SYSTEMS:
        tasks = table[table["system"] == system].groupby(["base_id", "task_id"])["cost_usd"].mean().reset_index()
        per_problem = tasks.groupby("base_id")["cost_usd"].agg(["sum", "count"])
        n = len(per_problem)
        draws = rng.integers(0, n, size=(20_000, n))
        boot = per_problem["sum"].to_numpy()[draws].sum(1) / per_problem["count"].to_numpy()[draws].sum(1)
        level = 2 * special.ndtr(np.sqrt(n / (n - 1)) * stats.t.ppf(0.975, n - 1)) - 1
        low, high = np.quantile(boot, [(1 - level) / 2, (1 + level) / 2])
        row = means[(means["system"] == system) & (means["quantity"] == "cost_usd")].iloc[0]
        width = high - low
        assert row["ci_low"] == pytest.approx(low, abs=0.03 * width)
        assert row["ci_high"] == pytest.approx(high, abs=0.03 * width)


def test_points_per_dollar_and_the_tokens_axis_when_costs_are_unknown():
    scores = _scores()
    table = answer_effort(scores, _usage(scores))
    wide = effort_wide(effort_means(table, n_boot=200))
    assert list(wide["system"]) == list(SYSTEMS)
    np.testing.assert_allclose(wide["item_f1_per_usd"], wide["item_f1"] / wide["cost_usd"])
    assert cost_axis(wide) == "cost_usd"
    unknown = answer_effort(scores, _usage(scores).assign(cost_usd=np.nan))
    wide = effort_wide(effort_means(unknown, n_boot=200))
    assert wide["cost_usd"].isna().all() and wide["item_f1_per_usd"].isna().all()
    assert cost_axis(wide) == "tokens"
    frontier = score_cost_frontier(wide)
    assert (frontier["axis"] == "tokens").all()
    np.testing.assert_allclose(frontier.set_index("system").loc[list(SYSTEMS), "points_per_unit"],
                               wide["item_f1"] / (wide["tokens"] / 1e6))
    with pytest.raises(SgrKitError, match=r"no cost to set the scores against"):
        score_cost_frontier(wide.assign(tokens=np.nan))


def _wide(**systems) -> pd.DataFrame:
    return pd.DataFrame({"system": list(systems), "item_f1": [v[0] for v in systems.values()],
                         "cost_usd": [v[1] for v in systems.values()]})


def test_the_frontier_keeps_the_systems_no_other_beats_on_both():
    f = score_cost_frontier(_wide(a=(70.0, 2.0), b=(60.0, 1.0), c=(50.0, 1.5), d=(40.0, 0.5), e=(65.0, 3.0)))
    assert list(f.columns) == list(FRONTIER_COLUMNS)
    got = f.set_index("system")
    assert got["on_frontier"].to_dict() == {"d": True, "b": True, "c": False, "a": True, "e": False}
    assert got.loc["c", "dominated_by"] == "b" and got.loc["e", "dominated_by"] == "a"
    assert list(f["system"]) == ["d", "b", "c", "a", "e"]  # by cost


def test_frontier_ties():
    # the same score and cost: neither dominates, both stay
    f = score_cost_frontier(_wide(a=(60.0, 1.0), b=(60.0, 1.0), c=(50.0, 2.0))).set_index("system")
    assert f["on_frontier"].to_dict() == {"a": True, "b": True, "c": False}
    assert f.loc["c", "dominated_by"] == "a, b"
    # the same score at a higher cost, the same cost with a lower score: dominated
    f = score_cost_frontier(_wide(a=(60.0, 1.0), b=(60.0, 1.5), c=(55.0, 1.0))).set_index("system")
    assert f["on_frontier"].to_dict() == {"a": True, "b": False, "c": False}


def test_a_system_of_unknown_cost_is_neither_on_the_frontier_nor_dominating():
    f = score_cost_frontier(_wide(a=(90.0, np.nan), b=(60.0, 1.0), c=(50.0, 2.0))).set_index("system")
    assert f["on_frontier"].to_dict() == {"b": True, "c": False, "a": False}
    assert f.loc["a", "dominated_by"] == "" and np.isnan(f.loc["a", "points_per_unit"])


def test_flag_means_count_flagged_answers_and_score_both_sides():
    scores = _scores(12)
    keys = scores[["system", "task_id", "repeat"]]
    flagged = keys[(scores["system"] == "cheap") & scores["task_id"].str.startswith(("p00", "p01", "p02"))]
    flags = pd.concat([flagged.assign(flag="stalled", detail=""),
                       flagged.iloc[:2].assign(flag="over_budget", detail="")])  # fmt: skip
    out = flag_means(scores, keys, flags, n_boot=300)
    assert list(out.columns) == list(FLAG_MEANS_COLUMNS)
    assert out["flag"].unique().tolist() == ["over_budget", "stalled", "tool_outside_protocol", "benchmark_visited",
                                             "any"]
    row = out[(out["system"] == "cheap") & (out["flag"] == "stalled")].iloc[0]
    cheap = scores[scores["system"] == "cheap"]
    hit = cheap["task_id"].str.startswith(("p00", "p01", "p02"))
    assert row["n_answers"] == len(cheap) and row["n_flagged"] == hit.sum()
    assert row["flagged_share"] == pytest.approx(100 * hit.mean())
    assert row["item_f1_flagged"] == pytest.approx(100 * cheap.loc[hit, "item_f1"].mean())  # each answer once
    assert row["item_f1_clean"] == pytest.approx(100 * cheap.loc[~hit, "item_f1"].mean())
    none = out[(out["system"] == "dear") & (out["flag"] == "stalled")].iloc[0]
    assert none["n_flagged"] == 0 and np.isnan(none["item_f1_flagged"])
    assert none["item_f1_clean"] == pytest.approx(100 * scores.loc[scores["system"] == "dear", "item_f1"].mean())
    any_row = out[(out["system"] == "cheap") & (out["flag"] == "any")].iloc[0]
    assert any_row["n_flagged"] == hit.sum()  # an answer with two flags counts once


@pytest.mark.slow
def test_the_page_runs_on_the_demo(tmp_path):
    import nbformat

    from sgr_kit.report import run_notebook
    from sgr_kit.resources import notebooks_dir

    out = run_notebook(notebooks_dir() / "10_effort_and_protocol.ipynb", tmp_path / "out.ipynb",
                       parameters={"n_boot": 200, "output_dir": str(tmp_path)})
    cells = nbformat.read(out, as_version=4).cells
    assert not [o for c in cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    for name in ("effort", "effort_per_answer", "protocol_flags", "protocol_flag_scores"):
        assert (tmp_path / "tables" / f"{name}.csv").is_file(), name
    flags = pd.read_csv(tmp_path / "tables" / "protocol_flags.csv")
    assert set(flags["flag"]) >= {"tool_outside_protocol", "benchmark_visited"}
    text = "".join(str(o) for c in cells if c.cell_type == "code" for o in c.outputs)
    assert "SYNTHETIC DATA" in text and "EXAMPLE prices" in text


def test_the_terminal_view_prints_effort_cost_frontier_and_flags(tmp_path, capsys):
    import json

    from sgr_kit.cli import main

    scores = _scores(8)
    scores.to_csv(tmp_path / "scores.csv", index=False)
    with open(tmp_path / "trajectories.jsonl", "w", encoding="utf-8") as handle:
        for i, row in enumerate(scores.itertuples(index=False)):
            steps = [{"kind": "search", "query": f"{row.task_id} records", "t": 5.0},
                     {"kind": "fetch", "url": f"https://site.org/{row.task_id}", "t": 60.0},
                     {"kind": "answer", "text": "x", "t": 4000.0 if i == 0 else 90.0}]  # fmt: skip
            if row.system == "dear" and i % 5 == 0:
                steps.insert(1, {"kind": "tool", "tool": "Bash", "url": "https://other.org/x", "t": 30.0})
            handle.write(json.dumps({"system": row.system, "task_id": row.task_id, "repeat": row.repeat,
                                     "steps": steps}) + "\n")
    assert main(["effort", str(tmp_path / "scores.csv"), "--trajectories", str(tmp_path / "trajectories.jsonl"),
                 "--n-boot", "200"]) == 0
    out = capsys.readouterr().out
    assert "Effort and cost per task" in out and "Protocol flags (answers carrying each)" in out
    flags = out.split("Protocol flags (answers carrying each)")[1].splitlines()
    cheap = next(line.split() for line in flags if line.strip().startswith("cheap"))
    dear = next(line.split() for line in flags if line.strip().startswith("dear"))
    n_dear = (scores["system"] == "dear").sum()
    assert cheap[1:] == [str((scores["system"] == "cheap").sum()), "0", "1", "0", "0", "1"]  # the 4,000 s stall
    assert dear[4] == str(sum(1 for i in range(len(scores)) if i % 5 == 0 and scores["system"].iloc[i] == "dear"))
    assert dear[1] == str(n_dear)
    assert "Costs: 0 reported, 0 priced, " in out  # no price file: unknown, never 0
    assert main(["effort", str(tmp_path / "scores.csv"), "--trajectories", str(tmp_path / "trajectories.jsonl"),
                 "--protocol", "none", "--n-boot", "200"]) == 0
    assert "Protocol flags" not in capsys.readouterr().out


def test_the_usage_tables_own_duration_sources_are_kept():
    scores = _scores(2)
    usage = _usage(scores).assign(seconds=[12.5] + [np.nan] * (len(scores) - 1),
                                  seconds_source=["last_step"] + ["unknown"] * (len(scores) - 1))  # fmt: skip
    table = answer_effort(scores, usage)  # as trajectory_usage writes them: not reported, the last step's time
    assert table["seconds"].iloc[0] == 12.5 and table["seconds_source"].iloc[0] == "last_step"
    assert table["seconds"].iloc[1:].isna().all() and (table["seconds_source"].iloc[1:] == "unknown").all()


@pytest.mark.slow
def test_the_page_reads_the_tables_the_report_computes_once(demo_report):
    import nbformat

    from sgr_kit.prepare import load_tasks
    from sgr_kit.report import notebook_parameters
    from sgr_kit.resources import demo_dir, demo_paths
    from sgr_kit.trajectories import trajectory_usage
    from sgr_kit.trajectories.protocol import protocol_flags

    paths = demo_paths()
    usage = trajectory_usage(paths["trajectories"], prices=demo_dir() / "prices-example.csv")
    flags = protocol_flags(paths["trajectories"], load_tasks(paths["constraint"], paths["goal"]), usage=usage)
    # the demo's report (built once per session, n_boot 200) computed both once and handed them to the page
    page = demo_report / "10_effort_and_protocol.ipynb"
    given = notebook_parameters(page)
    assert (given["usage_path"], given["flags_path"]) == ('"usage.csv"', '"protocol-flags.csv"')  # as written
    pd.testing.assert_frame_equal(pd.read_csv(demo_report / "usage.csv")[usage.columns], usage, check_dtype=False)
    cells = nbformat.read(page, as_version=4).cells
    assert not [o for c in cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    saved = pd.read_csv(demo_report / "tables" / "protocol_flags.csv")
    assert len(saved) == len(flags) and saved["flag"].tolist() == flags["flag"].tolist()
    per_answer = pd.read_csv(demo_report / "tables" / "effort_per_answer.csv")
    traced = per_answer[per_answer["has_trajectory"]]  # the demo's commercial systems have no trajectory
    assert (traced["seconds_source"] == "reported").all()
    assert (per_answer.loc[~per_answer["has_trajectory"], "seconds_source"] == "unknown").all()
    assert len(per_answer) == len(pd.read_csv(demo_paths()["runs"].parent / "truth.csv"))  # every answer kept


def _flip() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two systems: ``gappy`` scores higher on what it answered but left one task unanswered (scored missing)."""
    rows = []
    for p in range(8):
        for variant, suffix in (("constraint", ""), ("goal", "-g")):
            task = f"p{p:02d}{suffix}"
            for system, f1 in (("steady", 0.85), ("gappy", 0.9)):
                missing = system == "gappy" and task == "p00"
                rows.append({"system": system, "task_id": task, "base_id": f"p{p:02d}", "variant": variant,
                             "repeat": 0, "status": "missing" if missing else "parsed",
                             "item_f1": np.nan if missing else f1, "row_f1": np.nan if missing else f1 / 2,
                             "poa": np.nan if missing else 1.0})  # fmt: skip
    scores = pd.DataFrame(rows)
    answered = scores[scores["status"] != "missing"]  # a missing answer has no trajectory
    usage = answered[["system", "task_id", "repeat"]].assign(
        steps=5, input_tokens=1000, output_tokens=100, cost_usd=np.where(answered["system"] == "gappy", 0.1, 0.2))
    return scores, usage


def test_effort_and_frontier_use_the_main_tables_answers_and_failure_policy():
    """Point 1 of the effort issue: an answer without a trajectory keeps its score (the ranking flipped)."""
    from sgr_kit.report.summary import summary_table

    scores, usage = _flip()
    main = summary_table(scores, failure_policy="zero").query("variant == 'overall'").set_index("system")
    assert main.loc["steady", "item_f1"] > main.loc["gappy", "item_f1"]  # 85.0 against 84.375
    table = answer_effort(scores, usage)
    assert len(table) == len(scores)  # every answer, its effort unknown where it has no trajectory
    gap = table[(table["system"] == "gappy") & (table["task_id"] == "p00")].iloc[0]
    assert not gap["has_trajectory"] and np.isnan(gap["cost_usd"]) and gap["cost_source"] == "unknown"
    for policy in ("zero", "exclude"):
        means = effort_means(table, failure_policy=policy, n_boot=200)
        main = summary_table(scores, failure_policy=policy).query("variant == 'overall'").set_index("system")
        for metric in ("item_f1", "row_f1"):
            got = means[means["quantity"] == metric].set_index("system")["value"]
            np.testing.assert_allclose(got[main.index], main[metric], rtol=1e-12)
    frontier = score_cost_frontier(effort_wide(effort_means(table, n_boot=200))).set_index("system")
    assert frontier.loc["steady", "score"] > frontier.loc["gappy", "score"]
    assert frontier["on_frontier"].all() and (frontier["dominated_by"] == "").all()  # gappy is cheaper, not better
    cost = effort_means(table, n_boot=200).query("quantity == 'cost_usd'").set_index("system")
    assert cost.loc["gappy", "n_tasks"] == 15
    assert cost.loc["gappy", "note"].startswith("cost_usd unknown for 1 of 16 tasks: left out of its mean")


def test_effort_without_tasks_says_the_reference_check_was_left_out(tmp_path, capsys):
    import json

    from sgr_kit.cli import main

    scores = _scores(3)
    scores.to_csv(tmp_path / "scores.csv", index=False)
    with open(tmp_path / "t.jsonl", "w", encoding="utf-8") as handle:
        for row in scores.itertuples(index=False):
            handle.write(json.dumps({"system": row.system, "task_id": row.task_id, "repeat": row.repeat, "steps": [
                {"kind": "search", "query": "q", "t": 1.0}, {"kind": "answer", "text": "x", "t": 2.0}]}) + "\n")
    assert main(["effort", str(tmp_path / "scores.csv"), "--trajectories", str(tmp_path / "t.jsonl"),
                 "--n-boot", "200"]) == 0
    err = capsys.readouterr().err
    assert err.count("sgr-kit: warning: the protocol audit ran without --tasks: whether a query holds a line of a "
                     "task's reference answer was not checked") == 1
    assert main(["effort", str(tmp_path / "scores.csv"), "--trajectories", str(tmp_path / "t.jsonl"),
                 "--n-boot", "200", "--protocol", "none"]) == 0
    assert "without --tasks" not in capsys.readouterr().err  # no audit, nothing left out


def test_the_effort_pages_notes_and_cells_are_readable():
    """Point 8: notes name the system and the quantity, n/a says why, headers carry units, one number format."""
    from sgr_kit.breakdowns.effort import effort_display, effort_notes, flag_display
    from sgr_kit.trajectories.protocol import PAPER_PROTOCOL, describe_protocol

    scores, usage = _flip()
    usage = usage.assign(cost_usd=np.where(usage["system"] == "steady", np.nan, usage["cost_usd"]))
    table = answer_effort(scores, usage)
    means = effort_means(table, n_boot=200)
    notes = effort_notes(table, means)
    never = ("tool calls, searches, fetches, PDF reads, other tool calls, distinct hosts, cached input tokens, "
             "reasoning tokens, seconds")  # not in this usage table
    assert notes == [
        f"steady: {never}, cost (USD) unknown for 16 of 16 tasks (left out of the means)",
        f"gappy: 1 of 16 answers has no trajectory (its score counts; its effort is unknown); {never} unknown for 16 "
        f"of 16 tasks (left out of the means); steps, input tokens, output tokens, tokens (input + output), cost "
        f"(USD) unknown for 1 of 16 tasks (left out of the means)"]  # fmt: skip
    shown = effort_display(means, ["item_f1", "cost_usd", "seconds"]).set_index("system")
    assert list(shown.columns) == ["tasks", "Item-F1 (%)", "cost per task (USD)", "seconds per task (s)"]
    assert shown.loc["steady", "cost per task (USD)"] == "n/a (unknown for every task)"
    assert shown.loc["gappy", "Item-F1 (%)"].startswith("84.4 [")  # the main table's 84.375, one decimal
    # a value without an interval says why
    few = answer_effort(scores[scores["base_id"] < "p04"], usage)
    shown = effort_display(effort_means(few, n_boot=200), ["item_f1"]).set_index("system")
    assert shown.loc["gappy", "Item-F1 (%)"] == "78.8 [n/a: 4 base problems; an interval needs 6]"
    flags = pd.DataFrame({"system": ["gappy"], "task_id": ["p01"], "repeat": [0], "flag": ["stalled"], "detail": [""]})
    by_flag = flag_display(flag_means(scores, table, flags, flag_names=("stalled",), n_boot=200)).set_index("system")
    assert by_flag.loc["gappy", "answers audited"] == 15 and by_flag.loc["gappy", "flagged (%)"] == "6.7"
    assert by_flag.loc["steady", "Item-F1 flagged (%)"] == "n/a (no flagged answer)"
    text = describe_protocol(PAPER_PROTOCOL)
    assert "budget 6,000 s, stall limit 3,000 s" in text and "6000.0" not in text


def _claude_folder(tmp_path):
    import shutil
    from pathlib import Path

    source = Path(__file__).resolve().parent / "fixtures" / "trajectories" / "claude-code"
    folder = tmp_path / "trajectories"
    shutil.copytree(source, folder)
    return folder


def test_effort_says_each_note_on_the_trajectories_once(tmp_path, capsys):
    from sgr_kit.cli import main

    folder = _claude_folder(tmp_path)
    rows = [{"system": "Claude Opus 4.7", "task_id": t, "base_id": t, "variant": "constraint", "repeat": 0,
             "status": "parsed", "item_f1": 0.5, "row_f1": 0.5, "poa": 1.0} for t in ("arxiv_001", "arxiv_002",
                                                                                       "arxiv_003")]  # fmt: skip
    pd.DataFrame(rows).to_csv(tmp_path / "scores.csv", index=False)
    assert main(["effort", str(tmp_path / "scores.csv"), "--trajectories", str(folder), "--n-boot", "200"]) == 0
    err = capsys.readouterr().err
    assert err.count("read 3 files as Claude Code stream-json") == 1
    assert err.count("not JSON skipped") == 1


@pytest.mark.slow
def test_report_says_each_trajectory_note_once_and_none_when_quiet(tmp_path, capsys):
    from sgr_kit.cli import main
    from sgr_kit.resources import demo_paths

    folder = _claude_folder(tmp_path)  # Claude Opus 4.7's runs of two demo tasks, in Claude Code's own format
    paths = demo_paths()
    common = ["report", "--tasks", str(paths["constraint"]), str(paths["goal"]), "--runs", str(paths["runs"]),
              "--trajectories", str(folder), "--notebooks", "01", "-p", "n_boot", "100", "--no-progress"]
    assert main([*common, "--out", str(tmp_path / "loud")]) == 0
    err = capsys.readouterr().err
    assert err.count("read 3 files as Claude Code stream-json") == 1
    assert main([*common, "--out", str(tmp_path / "quiet"), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "read 3 files as" not in err and "not JSON skipped" not in err


@pytest.mark.slow
def test_a_saved_page_rerun_never_overwrites_the_report(tmp_path, demo_report):
    """Point 5: the manual's re-run of a saved page writes into a folder of its own, never the report's."""
    import json
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    report = tmp_path / "R"  # a copy of the session's demo report (tests/built_once.py): this test changes it
    shutil.copytree(demo_report, report)
    mine = {p: p.read_bytes() for p in sorted(report.rglob("*")) if p.is_file()}
    papermill = Path(sys.executable).with_name("papermill")
    done = subprocess.run([str(papermill), str(report / "10_effort_and_protocol.ipynb"), str(tmp_path / "again.ipynb"),
                           "--cwd", str(report), "-p", "protocol", "none"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert {p: p.read_bytes() for p in sorted(report.rglob("*")) if p.is_file()} == mine  # nothing overwritten
    own = tmp_path / f"{demo_report.name}-rerun" / "10_effort_and_protocol"  # beside the folder it was built in
    assert (own / "tables" / "effort.csv").is_file() and (own / "figures" / "score_cost_frontier.png").is_file()
    assert not (own / "tables" / "protocol_flags.csv").exists()  # the re-run's own choice: no audit
    assert "rerun" in json.loads((report / "provenance.json").read_text())
    # asked explicitly, a re-run writes into the report's folder
    before = (report / "tables" / "effort.csv").stat().st_mtime_ns
    done = subprocess.run([str(papermill), str(report / "10_effort_and_protocol.ipynb"), str(tmp_path / "b.ipynb"),
                           "--cwd", str(report), "-p", "output_dir", ".", "-p", "n_boot", "100"],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert (report / "tables" / "effort.csv").stat().st_mtime_ns > before
