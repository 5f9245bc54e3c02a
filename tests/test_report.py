"""The report build: every notebook on a small fixture, parallel papermill, offline HTML, atomic replacement."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pandas as pd
import pytest

from sgr_kit.cli import main
from sgr_kit.errors import SgrKitError
from sgr_kit.report import NOTEBOOKS, build_report, notebook_parameters, run_notebook
from sgr_kit.report.build import parse_parameter
from sgr_kit.resources import notebooks_dir

HOSTILE = "<script>alert(1)</script>"
#: What every analysis notebook's parameters cell defines (the report passes them).
COMMON = {"scores_path", "cells_path", "tasks_paths", "runs_path", "audit_path", "profile", "systems",
          "failure_policy", "n_boot", "seed", "alpha", "figure_format", "output_dir"}


def write_fixture(folder: Path) -> dict[str, list[str] | str]:
    """Six base problems in both variants, three systems, audit labels, one hostile answer."""
    folder.mkdir(parents=True, exist_ok=True)
    tasks, runs, audit = [], [], []
    domains = ["NVD", "ARXIV", "KEGG_BRITE", "WATER_OFFICE", "CFPB_REPORTS", "CENSUS_GOV"]
    for i, domain in enumerate(domains):
        rows = [f"K{i}-{r}|{10 * r + i}|x{r}" for r in range(1 + i % 4)]
        reference = "key|value|note\n" + "\n".join(rows)
        for suffix in ("", "-g"):
            tid = f"{domain.lower().split('_')[0]}_00{i + 1}{suffix}"
            tasks.append({"task_id": tid, "domain": domain, "oracle_answer": reference,
                          "output_format": "Return key|value|note rows."})
            for s, system in enumerate(("Alpha", "Beta", "GPT-5.5")):
                kept = rows[: max(1, len(rows) - s)]
                answer = "key|value|note\n" + "\n".join(kept)
                if system == "Beta" and i == 1 and suffix == "":  # the omitted row written with a hostile key
                    answer += "\n" + "|".join([HOSTILE, *rows[-1].split("|")[1:]])
                runs.append({"system": system, "task_id": tid, "answer": answer})
                audit.append({"system": system, "task_id": tid,
                              "label": "correct" if kept == rows else "scope_drift"})
    (folder / "tasks.jsonl").write_text("\n".join(json.dumps(t) for t in tasks) + "\n")
    (folder / "runs.jsonl").write_text("\n".join(json.dumps(r) for r in runs) + "\n")
    pd.DataFrame(audit).to_csv(folder / "audit.csv", index=False)
    return {"tasks": [str(folder / "tasks.jsonl")], "runs": [str(folder / "runs.jsonl")],
            "audit": str(folder / "audit.csv")}


@pytest.fixture(scope="module")
def fixture(tmp_path_factory):
    return write_fixture(tmp_path_factory.mktemp("fixture"))


@pytest.fixture(scope="module")
def built(fixture, tmp_path_factory):
    """One report of every notebook on the fixture (two workers), reused by several tests."""
    out = tmp_path_factory.mktemp("reports") / "report"
    lines: list[str] = []
    result = build_report(fixture["tasks"], fixture["runs"], out, audit_labels=fixture["audit"],
                          parameters={"n_boot": 200}, workers=2, progress=False, log=lines.append)
    return result, lines


def test_notebooks_are_committed_clean_with_one_parameters_cell():
    for path in sorted(notebooks_dir().glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
        assert len(tagged) == 1, path.name
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert not cell.outputs and cell.execution_count is None, f"{path.name} has outputs"
    assert {p.stem for p in notebooks_dir().glob("*.ipynb")} >= set(NOTEBOOKS)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_report_notebook_takes_every_common_parameter(name):
    assert COMMON <= set(notebook_parameters(notebooks_dir() / f"{name}.ipynb")), name


def test_every_notebook_runs_on_the_fixture(built):
    result, lines = built
    assert result.ok, [r.error for r in result.failed]
    assert [r.name for r in result.notebooks] == list(NOTEBOOKS)
    assert len(lines) >= len(NOTEBOOKS) + 1  # one progress line per notebook, with its time
    assert all(re.search(r"\d+\.\d s", line) for line in lines if line.startswith("0"))


def test_the_report_holds_everything(built):
    result, _ = built
    out = result.folder
    for name in NOTEBOOKS:
        assert (out / f"{name}.html").is_file() and (out / f"{name}.ipynb").is_file()
    for name in ("index.html", "scores.csv", "cells.parquet", "summary.txt", "paper-audit.csv",
                 "audit-labels.csv", "provenance.json"):
        assert (out / name).is_file(), name
    pngs, svgs = sorted((out / "figures").glob("*.png")), sorted((out / "figures").glob("*.svg"))
    assert pngs and {p.stem for p in pngs} == {p.stem for p in svgs}
    tables = sorted((out / "tables").glob("*.csv"))
    assert tables and all((out / "tables" / f"{t.stem}.tex").is_file() for t in tables)
    assert "\\toprule" in (out / "tables" / "headline.tex").read_text()
    provenance = json.loads((out / "provenance.json").read_text())
    assert {r["role"] for r in provenance["inputs"]} == {"tasks", "runs", "audit"}
    assert all(len(r["sha256"]) == 64 for r in provenance["inputs"])
    assert [n["name"] for n in provenance["notebooks"]] == list(NOTEBOOKS)
    assert provenance["parameters"]["n_boot"] == 200 and provenance["sgr_kit"]
    assert "pandas" in provenance["libraries"] and provenance["synthetic"] is False
    assert not list(out.parent.glob(f".{out.name}.*"))  # no temporary folder left beside it


def test_outputs_are_readable_by_others(built):
    result, _ = built
    for path in result.files:
        assert path.stat().st_mode & 0o044, f"{path} is not readable by group and others"


def test_every_page_opens_offline_and_shows_answer_text_as_text(built):
    result, _ = built
    pages = sorted(result.folder.glob("*.html"))
    assert len(pages) == len(NOTEBOOKS) + 1
    for page in pages:
        text = page.read_text(encoding="utf-8")
        outside = re.findall(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", text, flags=re.I)
        assert not outside, f"{page.name} loads from outside the folder: {outside[:3]}"
        assert not re.findall(r"@import\s+url\(\s*['\"]?(?:https?:)?//", text), page.name
        assert HOSTILE not in text, f"{page.name} carries the hostile answer as markup"
    mismatch = (result.folder / "06_where_points_went.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in mismatch  # shown, escaped


def test_index_flags_incomplete_systems_and_links_every_page(built):
    result, _ = built
    index = (result.folder / "index.html").read_text(encoding="utf-8")
    for name in NOTEBOOKS:
        assert f"href='{name}.html'" in index
    assert "(of 100)" in index  # 12 tasks, not the paper's 100: flagged beside the paper's numbers


def test_rebuild_with_only_parameters_changed_reuses_the_scores(built, fixture):
    result, _ = built
    lines: list[str] = []
    again = build_report(fixture["tasks"], fixture["runs"], result.folder, audit_labels=fixture["audit"],
                         notebooks=["01"], parameters={"n_boot": 150}, force=True, progress=False, log=lines.append)
    assert again.scoring_reused and any("reused" in line for line in lines)
    assert json.loads((again.folder / "provenance.json").read_text())["scoring"]["reused"] is True


def test_unknown_parameter_names_it_and_lists_the_accepted_ones(fixture, tmp_path):
    out = tmp_path / "report"
    with pytest.raises(SgrKitError, match=r"unknown notebook parameter\(s\) n_bot; .* define .*n_boot"):
        build_report(fixture["tasks"], fixture["runs"], out, parameters={"n_bot": 5}, progress=False)
    assert not out.exists() and not list(tmp_path.iterdir())


def test_values_are_data_never_code():
    assert parse_parameter("systems", "[a, b]") == ["a", "b"]
    assert parse_parameter("x", "__import__('os').system('true')") == "__import__('os').system('true')"
    with pytest.raises(SgrKitError, match="-p x: expected a number, text"):
        parse_parameter("x", "{a: 1}")


def test_report_refuses_a_file_and_a_full_folder(fixture, tmp_path):
    (tmp_path / "file").write_text("mine")
    with pytest.raises(SgrKitError, match="is an existing file; expected a folder"):
        build_report(fixture["tasks"], fixture["runs"], tmp_path / "file", progress=False)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("mine")
    with pytest.raises(SgrKitError, match="is not empty; pass --force"):
        build_report(fixture["tasks"], fixture["runs"], tmp_path / "full", progress=False)
    assert (tmp_path / "file").read_text() == "mine" and (tmp_path / "full" / "notes.txt").read_text() == "mine"


def test_a_failing_notebook_is_named_the_others_build_and_the_exit_status_is_not_zero(fixture, tmp_path, capsys):
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell("scores_path = None\noutput_dir = None")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbformat.v4.new_code_cell("raise ValueError('deliberate failure')")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    failing = tmp_path / "99_failing.ipynb"
    nbformat.write(nb, failing)
    out = tmp_path / "report"
    status = main(["report", "--tasks", *fixture["tasks"], "--runs", *fixture["runs"], "--out", str(out),
                   "--notebooks", f"01,{failing}", "-p", "n_boot", "120", "--no-progress", "--workers", "2"])
    err = capsys.readouterr().err
    assert status == 1
    assert "99_failing" in err and "failed in cell" in err and "deliberate failure" in err
    assert (out / "01_main_table.html").is_file() and (out / "99_failing.html").is_file()
    assert "Some notebooks failed" in (out / "index.html").read_text()
    executed = nbformat.read(out / "99_failing.ipynb", as_version=4)
    assert any(o.get("ename") == "ValueError" for c in executed.cells for o in c.get("outputs", []))


def test_run_notebook_refuses_an_unknown_parameter(tmp_path):
    nb = notebooks_dir() / "01_main_table.ipynb"
    with pytest.raises(SgrKitError, match=r"unknown parameter\(s\) failure_polcy; its parameters cell defines"):
        run_notebook(nb, tmp_path / "out.ipynb", parameters={"failure_polcy": "zero"})
    assert not (tmp_path / "out.ipynb").exists()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_build_leaves_the_previous_report_intact(built, fixture, tmp_path, sig):
    previous = tmp_path / "report"
    previous.mkdir()
    (previous / "index.html").write_text("the previous report")
    command = [sys.executable, "-m", "sgr_kit.cli", "report", "--tasks", *fixture["tasks"], "--runs",
               *fixture["runs"], "--out", str(previous), "--force", "--no-progress", "-p", "n_boot", "120"]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # wait until the build is under way: scores written, notebooks running
        building = list(tmp_path.glob(".report.building-*"))
        if building and (building[0] / "scores.csv").exists():
            break
        time.sleep(0.05)
    else:
        proc.kill()
        pytest.fail("the build never started")
    time.sleep(0.5)
    os.killpg(proc.pid, sig) if sig == signal.SIGINT else proc.send_signal(sig)
    proc.wait(timeout=60)
    assert proc.returncode != 0
    assert (previous / "index.html").read_text() == "the previous report"
    assert sorted(p.name for p in previous.iterdir()) == ["index.html"]
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "report"]
    assert not leftovers, leftovers


def test_trajectories_stand_in_for_runs_and_build_the_site_reach_page(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # relative paths, as a user types them
    files = write_fixture(tmp_path / "fixture")
    tasks = [json.loads(line) for line in Path(files["tasks"][0]).read_text().splitlines()]
    for t in tasks:
        t["start_url"] = f"https://www.{t['domain'].lower()}.example.org/search"
    Path(files["tasks"][0]).write_text("\n".join(json.dumps(t) for t in tasks) + "\n")
    site = {t["task_id"]: t["start_url"] for t in tasks}
    with (tmp_path / "trajectories.jsonl").open("w") as f:
        for k, run in enumerate(json.loads(line) for line in Path(files["runs"][0]).read_text().splitlines()):
            url = site[run["task_id"]] if k % 3 else "https://elsewhere.example/x"  # a third never reach the site
            f.write(json.dumps({"system": run["system"], "task_id": run["task_id"], "steps": [
                {"kind": "search", "query": run["task_id"]}, {"kind": "fetch", "url": url},
                {"kind": "answer", "text": run["answer"]}]}) + "\n")
    assert main(["report", "--tasks", "fixture/tasks.jsonl", "--runs", "fixture/runs.jsonl", "--out", "plain",
                 "--notebooks", "09", "--quiet", "--no-progress"]) == 0  # no trajectories: the page says so
    assert "No trajectories were given" in (tmp_path / "plain" / "09_site_reach.html").read_text(encoding="utf-8")
    assert not (tmp_path / "plain" / "tables" / "site_reach.csv").exists()
    out = tmp_path / "report"
    status = main(["report", "--tasks", "fixture/tasks.jsonl", "--trajectories", "trajectories.jsonl",
                   "--out", "report", "--notebooks", "09", "-p", "n_boot", "200", "--quiet", "--no-progress"])
    assert status == 0, capsys.readouterr().err
    table = pd.read_csv(out / "tables" / "site_reach.csv")
    pooled = table[(table["system"] == "all systems") & (table["quantity"] == "site_reached")]
    assert pooled["value"].iloc[0] == pytest.approx(100 * 24 / 36)
    assert (out / "figures" / "site_reach.png").is_file()
    assert "answers reached the task" in (out / "09_site_reach.html").read_text(encoding="utf-8")
    provenance = json.loads((out / "provenance.json").read_text())
    assert {r["role"] for r in provenance["inputs"]} == {"tasks", "runs", "trajectories"}
    scores = pd.read_csv(out / "scores.csv")  # the answers came from the trajectories
    assert len(scores) == 36 and set(scores["status"]) == {"parsed"}
    assert main(["score", "--tasks", files["tasks"][0], "--runs", str(tmp_path / "trajectories.jsonl"),
                 "--out", str(tmp_path / "scores.csv"), "--no-progress"]) == 0
    assert pd.read_csv(tmp_path / "scores.csv")[["item_f1", "row_f1"]].equals(scores[["item_f1", "row_f1"]])
