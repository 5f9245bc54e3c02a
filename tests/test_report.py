"""The report build: every notebook on a small fixture, parallel papermill, offline HTML, atomic replacement."""

from __future__ import annotations

import json
import os
import re
import shutil
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
# Builds reports and runs notebooks in Jupyter kernels (seconds each): `make test-fast` skips the module.
pytestmark = pytest.mark.slow

#: What every analysis notebook's parameters cell defines (the report passes them).
COMMON = {"scores_path", "cells_path", "tasks_paths", "runs_path", "audit_path", "profile", "systems",
          "failure_policy", "n_boot", "seed", "alpha", "figure_format", "output_dir"}


def write_fixture(folder: Path, systems: tuple[str, ...] = ("Alpha", "Beta", "GPT-5.5")) -> dict[str, list[str] | str]:
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
            for s, system in enumerate(systems):
                kept = rows[: max(1, len(rows) - s)]
                answer = "key|value|note\n" + "\n".join(kept)
                if s == 1 and i == 1 and suffix == "":  # the omitted row written with a hostile key
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
    shutil.copytree(out, out.parent / "pristine")  # as built, for tests that change a copy
    return result, lines


@pytest.fixture
def pristine(built, tmp_path):
    """A copy of the report as built, in a folder of its own."""
    copy = tmp_path / "copied-report"
    shutil.copytree(built[0].folder.parent / "pristine", copy)
    return copy


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


def test_rebuild_with_only_parameters_changed_reuses_the_scores(pristine, fixture):
    lines: list[str] = []  # on a copy: the shared report stays as built for the tests that read it
    again = build_report(fixture["tasks"], fixture["runs"], pristine, audit_labels=fixture["audit"],
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


def test_run_notebook_starts_its_kernel_in_cwd_and_never_moves_the_process(tmp_path, monkeypatch):
    # papermill's own cwd= changes the process's working directory while the notebook runs: two threads
    # running notebooks at once would then start kernels in each other's folders
    import os

    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                           "language": "python"}})
    nb.cells = [nbformat.v4.new_code_cell("n = 1", metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell("import os; print(os.getcwd(), n)")]
    source = tmp_path / "where.ipynb"
    nbformat.write(nb, source)
    (tmp_path / "inputs").mkdir()
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    moves = []  # papermill's file handler changes to the directory it is in as it reads and writes: harmless
    monkeypatch.setattr(os, "chdir", lambda path: moves.append(str(path)))
    out = run_notebook(source, Path("out") / "where.ipynb", parameters={"n": 7}, cwd=tmp_path / "inputs")
    assert out == tmp_path / "elsewhere" / "out" / "where.ipynb"
    assert set(moves) <= {str(tmp_path / "elsewhere")}, moves
    printed = nbformat.read(out, as_version=4).cells[-1].outputs[0]["text"].split()
    assert printed == [str(tmp_path / "inputs"), "7"]


@pytest.mark.concurrent
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_build_leaves_the_previous_report_intact(fixture, tmp_path, sig):
    import psutil

    from sgr_kit.testing import PAUSE_DIR, held

    previous = tmp_path / "report"
    previous.mkdir()
    (previous / "index.html").write_text("the previous report")
    (previous / "provenance.json").write_text(json.dumps({"report": "sgr-kit report"}))
    pauses = tmp_path / "pauses"
    pauses.mkdir()
    command = [sys.executable, "-m", "sgr_kit.cli", "report", "--tasks", *fixture["tasks"], "--runs",
               *fixture["runs"], "--out", str(previous), "--force", "--no-progress", "-p", "n_boot", "120",
               "--notebooks", "01,03", "--workers", "2"]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
                            env={**os.environ, PAUSE_DIR: str(pauses)})
    with held(proc, "report-page-running", pauses):  # scores written, a page running in its kernel
        building = list(tmp_path.glob(".report.building-*"))
        assert len(building) == 1 and (building[0] / "scores.csv").is_file()
        kernels = [p for p in psutil.Process(proc.pid).children(recursive=True)
                   if "ipykernel" in " ".join(p.cmdline())]
        assert kernels, "no kernel was seen running"
        os.killpg(proc.pid, sig) if sig == signal.SIGINT else proc.send_signal(sig)
        proc.wait(timeout=120)
    assert proc.returncode == {signal.SIGINT: 130, signal.SIGTERM: 143}[sig], proc.stderr.read()
    gone, alive = psutil.wait_procs(kernels, timeout=5)
    assert not alive, f"kernels outlived the build: {alive}"
    # the build and its kernels have ended: nothing is left to write into the removed folder
    assert (previous / "index.html").read_text() == "the previous report"
    assert sorted(p.name for p in previous.iterdir()) == ["index.html", "provenance.json"]
    leftovers = [p.name for p in tmp_path.iterdir() if p.name not in ("report", "pauses")]
    assert not leftovers, leftovers


def test_without_trajectories_the_site_reach_page_says_so(fixture, tmp_path):
    result = build_report(fixture["tasks"], fixture["runs"], tmp_path / "report", notebooks=["09"],
                          parameters={"n_boot": 200}, progress=False)
    assert result.ok, result.failed
    page = (result.folder / "09_site_reach.html").read_text(encoding="utf-8")
    assert "No trajectories were given" in page
    assert not (result.folder / "tables" / "site_reach.csv").exists()
    assert not (result.folder / "site-reach.csv").exists()


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


# ------------------------------------------------------------------ safety of the report folder


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_force_never_replaces_a_folder_holding_an_input(tmp_path, monkeypatch, capsys):
    project = tmp_path / "project"
    inputs = write_fixture(project)
    (project / "src").mkdir()
    (project / "src" / "thesis.tex").write_text("\\chapter{mine}")
    before = _tree(project)
    monkeypatch.chdir(project)
    status = main(["report", "--tasks", "tasks.jsonl", "--runs", "runs.jsonl", "--out", ".", "--force", "--quiet"])
    assert status == 2 and "contains the input tasks.jsonl" in capsys.readouterr().err
    with pytest.raises(SgrKitError, match=r"report folder .* is the input .*audit.csv"):
        build_report(inputs["tasks"], inputs["runs"], project / "audit.csv", audit_labels=inputs["audit"], force=True,
                     progress=False)
    assert _tree(project) == before and sorted(os.listdir(tmp_path)) == ["project"]


def test_force_replaces_only_a_report(fixture, tmp_path):
    mine = tmp_path / "mine"
    (mine / "src").mkdir(parents=True)
    (mine / "src" / "thesis.tex").write_text("mine")
    with pytest.raises(SgrKitError, match=r"holds src but no sgr-kit report .*--force replaces only a report"):
        build_report(fixture["tasks"], fixture["runs"], mine, force=True, progress=False)
    assert (mine / "src" / "thesis.tex").read_text() == "mine"


def test_force_refuses_a_report_folder_holding_other_files(fixture, pristine):
    (pristine / "notes.txt").write_text("mine")
    with pytest.raises(SgrKitError, match=r"holds files that are not part of its report: notes.txt"):
        build_report(fixture["tasks"], fixture["runs"], pristine, force=True, progress=False)
    assert (pristine / "notes.txt").read_text() == "mine"


def test_the_report_folder_follows_the_umask(built):
    mask = os.umask(0)
    os.umask(mask)
    folder = built[0].folder.parent / "pristine"  # copied with its modes (copytree keeps them)
    for path in [folder, folder / "figures", folder / "tables"]:
        assert path.stat().st_mode & 0o777 == 0o777 & ~mask, oct(path.stat().st_mode)
    for path in (p for p in folder.rglob("*") if p.is_file()):
        assert path.stat().st_mode & 0o777 == 0o666 & ~mask, (path, oct(path.stat().st_mode))


# ------------------------------------------------------------------ one set of parameters, a self-contained folder


def test_provenance_records_the_analysis_parameters_once(pristine):
    provenance = json.loads((pristine / "provenance.json").read_text())
    assert provenance["report"] == "sgr-kit report"
    assert provenance["analysis"]["n_boot"] == 200 and provenance["analysis"]["failure_policy"] == "zero"
    assert set(provenance["files"]) == {p.relative_to(pristine).as_posix() for p in pristine.rglob("*") if p.is_file()}


def test_the_index_applies_the_same_policy_and_systems_as_the_pages(fixture, tmp_path):
    out = tmp_path / "report"
    result = build_report(fixture["tasks"], fixture["runs"], out, notebooks=["01"], failure_policy="exclude",
                          parameters={"systems": ["Alpha", "Beta"], "n_boot": 120}, progress=False)
    assert result.ok, result.failed
    headline = pd.read_csv(out / "tables" / "headline.csv")
    main_table = pd.read_csv(out / "tables" / "main_table.csv").query("variant == 'overall'")
    assert sorted(headline["system"]) == sorted(main_table["system"]) == ["Alpha", "Beta"]
    pages = main_table.set_index("system")["item_f1"]
    assert headline.set_index("system")["item_f1"].round(9).to_dict() == pages.round(9).to_dict()
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "failure policy &#x27;exclude&#x27;" in index or "failure policy 'exclude'" in index
    assert "GPT-5.5" not in index
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["analysis"]["systems"] == ["Alpha", "Beta"]
    assert provenance["analysis"]["failure_policy"] == "exclude"


def test_the_index_shares_page_01s_intervals_and_they_equal_computing_them_again(pristine):
    from sgr_kit.pipeline import load_inputs
    from sgr_kit.report.index import headline_table

    analysis = json.loads((pristine / "provenance.json").read_text())["analysis"]
    inputs = load_inputs(scores=pristine / "scores.csv")
    fresh = headline_table(inputs, failure_policy=analysis["failure_policy"], n_boot=analysis["n_boot"],
                           seed=analysis["seed"], systems=analysis["systems"], alpha=analysis["alpha"])
    assert fresh.to_csv(index=False) == (pristine / "tables" / "headline.csv").read_text(encoding="utf-8")
    main_table = pd.read_csv(pristine / "tables" / "main_table.csv")
    with pytest.raises(SgrKitError, match="main table's systems are not the scores' systems"):
        headline_table(inputs, main_table=main_table[main_table["system"] != main_table["system"].iloc[0]])


def test_no_kernel_outlives_a_build(built):
    # but those the test process keeps for its next build (tests/conftest.py: keep_kernels)
    import psutil

    from sgr_kit.report import kernels

    folder = str(built[0].folder.parent)
    kept = {kernel.pid for kernel in kernels._IDLE}
    left = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            if ("ipykernel_launcher" in " ".join(proc.info["cmdline"] or ()) and proc.cwd().startswith(folder)
                    and proc.pid not in kept):
                left.append(proc)
        except psutil.Error:
            continue
    assert not left, f"kernels of the build still run: {left}"


def test_a_report_names_only_files_inside_it_and_a_saved_notebook_runs_again_elsewhere(pristine, tmp_path):
    for path in pristine.rglob("*"):
        if path.is_file() and path.suffix in (".ipynb", ".html", ".json", ".txt"):
            assert ".building-" not in path.read_text(encoding="utf-8", errors="replace"), path.name
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    papermill = Path(sys.executable).with_name("papermill")
    done = subprocess.run([str(papermill), str(pristine / "01_main_table.ipynb"), "again.ipynb", "--cwd",
                           str(pristine), "-p", "n_boot", "120"], cwd=elsewhere, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    again = nbformat.read(elsewhere / "again.ipynb", as_version=4)
    assert not [o for c in again.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]


def test_rebuilding_a_subset_keeps_the_other_pages(fixture, pristine):
    before = {name: (pristine / f"{name}.html").read_bytes() for name in NOTEBOOKS}
    result = build_report(fixture["tasks"], fixture["runs"], pristine, audit_labels=fixture["audit"],
                          notebooks=["03"], parameters={"n_boot": 200}, force=True, progress=False)
    assert result.ok and [r.name for r in result.notebooks] == list(NOTEBOOKS)
    for name in NOTEBOOKS:
        assert (pristine / f"{name}.html").is_file(), name
        if name != "03_cardinality_bins":
            assert (pristine / f"{name}.html").read_bytes() == before[name], name
    index = (pristine / "index.html").read_text(encoding="utf-8")
    assert all(f"href='{name}.html'" in index for name in NOTEBOOKS)
    kept = {n["name"]: n["kept"] for n in json.loads((pristine / "provenance.json").read_text())["notebooks"]}
    assert kept["03_cardinality_bins"] is False and kept["01_main_table"] is True


def test_a_list_given_as_text_through_papermill_says_why(pristine):
    from sgr_kit.report.notebook import open_notebook

    with pytest.raises(SgrKitError, match=r"systems is the text '\[\"Alpha\"\]', not a list: papermill's -p passes"):
        open_notebook(scores_path=pristine / "scores.csv", systems='["Alpha"]', banner=False)
    with pytest.raises(SgrKitError, match=r"'\"Alpha\"' not in the scores table \(the quotes or brackets are part"):
        open_notebook(scores_path=pristine / "scores.csv", systems=['"Alpha"'], banner=False)


# ------------------------------------------------------------------ names from data in the report


HOSTILE_SYSTEMS = ("n" * 5000, "Agent $\\frac$ v2", "Evil\x1b[31m\u202eAgent")


def test_hostile_system_names_build_bounded_pages_with_controls_visible(tmp_path):
    inputs = write_fixture(tmp_path / "hostile-fixture", systems=HOSTILE_SYSTEMS)
    out = tmp_path / "report"
    result = build_report(inputs["tasks"], inputs["runs"], out, notebooks=["01", "02"],
                          parameters={"n_boot": 120, "n_perm": 200}, workers=2, progress=False)
    assert result.ok, [r.error for r in result.failed]
    for page in out.glob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "\x1b" not in text and "\u202e" not in text, page.name
        assert len(text) < 5_000_000, (page.name, len(text))
        assert "n" * 400 not in text.replace("\n", ""), page.name  # the 5,000-character name is cut everywhere
    assert "⟨RLO⟩" in (out / "01_main_table.html").read_text(encoding="utf-8")
    for png in (out / "figures").glob("*.png"):
        height, width = plt_shape(png)
        assert height < 4000 and width < 4000, (png.name, height, width)


def plt_shape(path: Path) -> tuple[int, int]:
    import matplotlib.pyplot as plt

    return plt.imread(path).shape[:2]


def test_a_system_the_scores_do_not_hold_is_refused_before_any_notebook_runs(fixture, tmp_path):
    out = tmp_path / "report"
    with pytest.raises(SgrKitError, match=r"-p systems: '\"Alpha\"' not in the scores table \(quotes or brackets are "
                                          r"part of these names as given"):
        build_report(fixture["tasks"], fixture["runs"], out, parameters={"systems": ['"Alpha"']}, progress=False)
    assert list(tmp_path.iterdir()) == []


def test_a_report_scores_answers_in_the_language_asked(original_dir, tmp_path, capsys):
    root = tmp_path / "release"
    for lang in ("data_en", "data_zh"):
        for path in original_dir.glob("*.json"):
            folder = root / lang / ("goal" if path.stem.endswith("-g") else "constraint")
            folder.mkdir(parents=True, exist_ok=True)
            (folder / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    runs = tmp_path / "runs.jsonl"
    with runs.open("w", encoding="utf-8") as f:
        for path in sorted(original_dir.glob("*.json")):
            task = json.loads(path.read_text(encoding="utf-8"))
            f.write(json.dumps({"system": "S", "task_id": task["task_id"], "answer": task["oracle_answer"]}) + "\n")
    out = tmp_path / "report"
    status = main(["report", "--tasks", str(root), "--runs", str(runs), "--language", "zh", "--out", str(out),
                   "--notebooks", "01", "-p", "n_boot", "200", "--quiet", "--no-progress"])
    assert status == 0, capsys.readouterr().err
    scores = pd.read_csv(out / "scores.csv")
    assert set(scores["language"]) == {"zh"} and scores["item_f1"].tolist() == [1.0] * 4
    assert json.loads((out / "provenance.json").read_text())["scoring"]["language"] == "zh"


def _shown(cell) -> list:
    """What a cell showed: its outputs without execution counts (papermill's timing lives in metadata).

    Consecutive outputs of one stream are joined, as a notebook shows them: how a kernel cuts its
    printed text into messages depends on when its output thread flushes (``print(x)`` may arrive
    as ``x`` and ``"\\n"``), which a busy machine changes from run to run.
    """
    shown: list = []
    for output in cell.get("outputs", []):
        output = {k: v for k, v in output.items() if k != "execution_count"}
        if (output.get("output_type") == "stream" and shown and shown[-1].get("output_type") == "stream"
                and shown[-1].get("name") == output.get("name")):
            shown[-1] = {**shown[-1], "text": shown[-1]["text"] + output["text"]}
        else:
            shown.append(output)
    return shown


def _first_difference(a: str, b: str, context: int = 300) -> str:
    """Where two texts first differ, with some text around it."""
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"...{a[max(0, at - context):at + context]!r} != ...{b[max(0, at - context):at + context]!r}"


@pytest.mark.concurrent
def test_pages_that_shared_a_kernel_equal_each_page_run_alone_by_papermill(built, pristine, tmp_path):
    # The build runs the report's own pages one after another in one kernel per page thread, restored
    # between pages to the state of a fresh kernel (sgr_kit.report.kernels). Run again alone, each in a
    # kernel of its own, every saved notebook must show the same outputs and write the same bytes.
    from concurrent.futures import ThreadPoolExecutor

    def files():
        return {str(p.relative_to(pristine)): p.read_bytes() for p in sorted(pristine.rglob("*"))
                if p.is_file() and p.parent.name in ("tables", "figures")}

    before = files()
    assert any(name.endswith(".png") for name in before) and any(name.endswith(".csv") for name in before)
    shared_kernels = [line for line in built[1] if line.startswith(NOTEBOOKS)]
    assert len(shared_kernels) == len(NOTEBOOKS)  # every page built (two page threads: kernels were shared)
    def alone(name: str) -> None:
        # papermill, with a new kernel started in the report's folder (as `papermill --cwd` does, without moving
        # this process's working directory, which two threads at once must not do)
        run_notebook(pristine / f"{name}.ipynb", tmp_path / f"{name}.ipynb", cwd=pristine)

    with ThreadPoolExecutor(2) as pool:  # two at a time, as the build runs them; each in a new kernel of its own
        list(pool.map(alone, NOTEBOOKS))
    for name in NOTEBOOKS:
        shared = nbformat.read(pristine / f"{name}.ipynb", as_version=4)
        alone = nbformat.read(tmp_path / f"{name}.ipynb", as_version=4)
        assert [c.get("execution_count") for c in shared.cells] == [c.get("execution_count") for c in alone.cells]
        differ = [i for i, (a, b) in enumerate(zip(shared.cells, alone.cells)) if _shown(a) != _shown(b)]
        assert differ == [], f"{name}: cells {differ} show something else when run alone: " + _first_difference(
            str(_shown(shared.cells[differ[0]])), str(_shown(alone.cells[differ[0]]))) if differ else ""
    after = files()  # the re-runs never wrote into the report: its files are as built
    assert sorted(after) == sorted(before)
    assert [name for name in before if after[name] != before[name]] == []
    # each saved page wrote the same bytes into a folder of its own, beside the report (ReportPlan.rerun_dir)
    rerun = pristine.parent / "report-rerun"
    written = {}
    for name in NOTEBOOKS:
        written.update({str(p.relative_to(rerun / name)): p.read_bytes() for p in sorted((rerun / name).rglob("*"))
                        if p.is_file() and p.parent.name in ("tables", "figures")})  # fmt: skip
    assert set(written) <= set(before) and set(before) - set(written) <= {"tables/headline.csv", "tables/headline.tex"}
    assert [name for name in written if written[name] != before[name]] == []  # (the index writes the headline)


def test_builds_in_one_process_leave_no_threads_or_open_files_behind(fixture, tmp_path, monkeypatch):
    # papermill leaves its kernel client open on a kernel it did not start (each client holds a ZeroMQ
    # context: a thread and sockets); the build closes them, so a session that builds many reports
    # does not run out of threads or file descriptors. As a JupyterLab session builds: no kernel kept.
    import gc

    import psutil

    from sgr_kit.report import kernels

    monkeypatch.setitem(kernels._KEEP, "most", 0)
    monkeypatch.setattr(kernels, "_IDLE", [])
    me = psutil.Process()
    counts = []  # the first build starts what a process keeps (a ZeroMQ context's thread); the second adds nothing
    for i in range(2):
        result = build_report(fixture["tasks"], fixture["runs"], tmp_path / f"r{i}", notebooks=["01", "03"],
                              parameters={"n_boot": 100}, workers=2, progress=False)
        assert result.ok
        gc.collect()
        counts.append((me.num_threads(), me.num_fds()))
    (threads_1, fds_1), (threads_2, fds_2) = counts
    assert threads_2 <= threads_1 and fds_2 <= fds_1 + 2, counts


def test_kernels_kept_between_builds_run_each_page_as_a_new_kernel(fixture, tmp_path, monkeypatch):
    # keep_kernels: a build takes the kernels the one before left, moved to its own folder and restored as
    # before every page; its pages show and write what the first build's, in new kernels, did. A build whose
    # inputs are refused gives them back; one stopped while its pages run stops them.
    import shutil

    import psutil

    from sgr_kit.report import kernels, keep_kernels

    monkeypatch.setattr(kernels, "_IDLE", [])  # this test's kernels only; the process's are left as they are
    monkeypatch.setitem(kernels._KEEP, "most", 2)
    monkeypatch.setitem(kernels._KEEP, "varying", frozenset({"SGR_KIT_VARYING"}))

    def build(name: str, log=None, **options):
        return build_report(fixture["tasks"], fixture["runs"], tmp_path / name, notebooks=["01", "03"],
                            parameters={"n_boot": 100, **options}, workers=2, progress=False, log=log)

    def shown(folder: Path) -> dict:
        pages = {name: [(c.get("execution_count"), _shown(c)) for c in nbformat.read(p, as_version=4).cells]
                 for name, p in ((p.stem, p) for p in sorted(folder.glob("*.ipynb")))}
        files = {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
                 if p.is_file() and p.parent.name in ("tables", "figures")}
        return {"pages": pages, "files": files}

    def idle() -> list[int]:
        return sorted(kernel.pid for kernel in kernels._IDLE)

    def running(pids) -> list[int]:
        return [pid for pid in pids if psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE]

    monkeypatch.setenv("SGR_KIT_VARYING", "first")
    assert build("first").ok
    first_kernels = idle()
    assert len(first_kernels) == 2
    first = shown(tmp_path / "first")
    shutil.rmtree(tmp_path / "first")  # a kernel left working there would fail to read the second's files
    monkeypatch.setenv("SGR_KIT_VARYING", "second")  # named as varying: the kernels are kept, with its new value
    assert build("second").ok
    assert idle() == first_kernels  # the same two processes
    second = shown(tmp_path / "second")
    assert second["pages"] == first["pages"] and second["files"] == first["files"]
    for kernel in list(kernels._IDLE):
        kernel.fresh(tmp_path)  # as before a page
        kernel._wait(kernel._send("import os; assert os.environ['SGR_KIT_VARYING'] == 'second', os.environ"
                                  "['SGR_KIT_VARYING']; assert os.getcwd() == " + repr(str(tmp_path))), 60, "the check")
    with pytest.raises(SgrKitError, match="not in the scores"):  # refused before any page: the kernels go back
        build("third", systems=["No Such System"])
    assert idle() == first_kernels
    monkeypatch.setenv("SGR_KIT_EXAMPLE", "another environment")
    assert kernels.take_kernel() is None  # started with another environment: handed to no build of this one
    monkeypatch.delenv("SGR_KIT_EXAMPLE")
    oldest = kernels._IDLE[0].pid
    keep_kernels(1, varying=["SGR_KIT_VARYING"])  # the one kept longest stops
    assert idle() == sorted(set(first_kernels) - {oldest}) and running([oldest]) == []

    def stop_at_the_first_page(line: str) -> None:
        if line.startswith(("01_", "03_")):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build("fourth", log=stop_at_the_first_page)
    assert kernels._IDLE == [] and running(first_kernels) == []
    assert not (tmp_path / "fourth").exists()


@pytest.mark.concurrent
def test_a_kernel_killed_while_it_imports_ends_the_wait_for_it(tmp_path):
    # an interrupted build kills its kernels; a page thread waiting for a kernel's imports must then end at
    # once (it waited out the 60 s deadline, and the build's cleanup waited 10 s for it)
    import psutil

    from sgr_kit.report.kernels import PageKernel

    kernel = PageKernel(tmp_path)
    try:
        psutil.Process(kernel.pid).kill()
        with pytest.raises(RuntimeError, match="the kernel stopped before it finished its imports"):
            kernel.ready(timeout=600)
    finally:
        kernel.stop()


@pytest.mark.parametrize("most", [-1, True, 1.5, "2"])
def test_keep_kernels_wants_a_whole_number(most):
    from sgr_kit.report import keep_kernels

    with pytest.raises(ValueError, match="expected a whole number of kernels, 0 or more"):
        keep_kernels(most)
    with pytest.raises(ValueError, match="varying: expected names of environment variables; got 'PATH'"):
        keep_kernels(2, varying="PATH")


def _leaky_page(path: Path) -> Path:
    """A notebook that changes what a kernel shows globally: pandas' and NumPy's options, IPython's %precision."""
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                           "language": "python"}})
    nb.cells = [nbformat.v4.new_code_cell("\n".join([
        "import decimal, logging, numpy as np, pandas as pd",
        "pd.set_option('display.precision', 0)",
        "pd.set_option('display.max_rows', 3)",
        "np.set_printoptions(precision=1, suppress=True, threshold=5)",
        "np.seterr(all='raise')",
        "decimal.getcontext().prec = 3",
        "logging.getLogger().setLevel(logging.DEBUG)",
        "get_ipython().run_line_magic('precision', '0')",
    ]))]
    nbformat.write(nb, path)
    return path


def test_a_page_that_sets_options_leaves_the_next_page_in_its_kernel_as_run_alone(fixture, tmp_path, monkeypatch):
    # Made to share the kept kernel (as if it were one of the report's own pages), a page that sets pandas'
    # and NumPy's options runs first; page 01 after it in the same kernel must show what it shows run alone
    import papermill

    import sgr_kit.report.pages as pages

    leaky = _leaky_page(tmp_path / "00_leaky.ipynb")
    monkeypatch.setattr(pages, "is_own_page", lambda notebook: True)
    result = build_report(fixture["tasks"], fixture["runs"], tmp_path / "report", notebooks=[str(leaky), "01"],
                          parameters={"n_boot": 100}, workers=1, progress=False)
    assert result.ok, result.failed
    report = result.folder
    papermill.execute_notebook(str(report / "01_main_table.ipynb"), str(tmp_path / "alone.ipynb"), cwd=str(report),
                               kernel_name="python3", progress_bar=False)
    shared = nbformat.read(report / "01_main_table.ipynb", as_version=4)
    alone = nbformat.read(tmp_path / "alone.ipynb", as_version=4)
    differ = [i for i, (a, b) in enumerate(zip(shared.cells, alone.cells)) if _shown(a) != _shown(b)]
    assert differ == [], f"cells {differ} of page 01 show something else after the leaky page"


def test_only_the_shipped_pages_are_the_reports_own(tmp_path, monkeypatch):
    # known by name and content, not by the folder: another notebook in the package's notebooks folder, or
    # a page of the same name with other content, runs in a kernel of its own; a copy of a page is still one
    import sgr_kit.report.plan as plan

    folder = tmp_path / "notebooks"
    folder.mkdir()
    for name in NOTEBOOKS:
        shutil.copyfile(notebooks_dir() / f"{name}.ipynb", folder / f"{name}.ipynb")
    _leaky_page(folder / "99_placed_beside.ipynb")
    monkeypatch.setattr(plan, "notebooks_dir", lambda: folder)
    plan._shipped_digests.cache_clear()
    try:
        assert all(plan.is_own_page(folder / f"{name}.ipynb") for name in NOTEBOOKS)
        assert not plan.is_own_page(folder / "99_placed_beside.ipynb")
        copy = tmp_path / "elsewhere" / "01_main_table.ipynb"
        copy.parent.mkdir()
        shutil.copyfile(folder / "01_main_table.ipynb", copy)
        assert plan.is_own_page(copy)
        _leaky_page(copy)  # named as page 01, other content
        assert not plan.is_own_page(copy)
    finally:
        plan._shipped_digests.cache_clear()


def _fixture_with_sites(folder: Path) -> dict:
    """The report fixture, its tasks given a site each (a ``start_url``), as trajectories need."""
    files = write_fixture(folder)
    tasks = [json.loads(line) for line in Path(files["tasks"][0]).read_text().splitlines()]
    Path(files["tasks"][0]).write_text("".join(json.dumps({**t, "start_url": f"https://{t['domain'].lower()}.example"})
                                               + "\n" for t in tasks))  # fmt: skip
    return files


def test_the_effort_page_gets_usage_flags_prices_and_protocol_computed_once(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    files = _fixture_with_sites(tmp_path / "fixture")
    with (tmp_path / "trajectories.jsonl").open("w") as f:
        for k, run in enumerate(json.loads(line) for line in Path(files["runs"][0]).read_text().splitlines()):
            usage = {"prompt_tokens": 1000, "completion_tokens": 50, "prompt_tokens_details": {"cached_tokens": 400}}
            call = {"id": "c1", "type": "function", "function": {"name": "serper",
                                                                 "arguments": json.dumps({"q": run["task_id"]})}}
            messages = [{"role": "user", "content": "the task"},
                        {"role": "assistant", "content": None, "tool_calls": [call], "usage": usage},
                        {"role": "tool", "tool_call_id": "c1", "content": "results"},
                        {"role": "assistant", "content": run["answer"], "usage": usage}]  # fmt: skip
            totals = {"seconds": 30.0 if k % 4 == 0 else 10.0}
            if run["system"] == "Alpha":
                totals["cost_usd"] = 0.25
            f.write(json.dumps({"system": run["system"], "task_id": run["task_id"], "messages": messages,
                                "totals": totals}) + "\n")
    Path("prices.csv").write_text("# EXAMPLE prices for a test\nsystem,input,cached_input,output\nBeta,2,0.5,8\n")
    Path("lab.yaml").write_text("budget_seconds: 20\n")
    Path("kinds.csv").write_text("tool,kind\nserper,search\n")
    status = main(["report", "--tasks", files["tasks"][0], "--trajectories", "trajectories.jsonl", "--out", "report",
                   "--notebooks", "10", "-p", "n_boot", "200", "--quiet", "--no-progress", "--prices", "prices.csv",
                   "--protocol", "lab.yaml", "--tool-kinds", "kinds.csv"])  # fmt: skip
    assert status == 0, capsys.readouterr().err
    out = tmp_path / "report"
    usage = pd.read_csv(out / "usage.csv").set_index(["system", "task_id"])
    assert set(usage.loc["Alpha", "cost_source"]) == {"reported"} and (usage.loc["Alpha", "cost_usd"] == 0.25).all()
    assert set(usage.loc["Beta", "cost_source"]) == {"priced"}
    # two calls of 1,000 input tokens (400 cached) and 50 output tokens, at Beta's prices
    assert usage.loc["Beta", "cost_usd"].iloc[0] == pytest.approx((1200 * 2 + 800 * 0.5 + 100 * 8) / 1e6)
    assert set(usage.loc["GPT-5.5", "cost_source"]) == {"unknown"}
    assert (usage["searches"] == 1).all()  # the tool kinds: serper is a search, so no tool outside the protocol
    flags = pd.read_csv(out / "protocol-flags.csv")
    assert set(flags["flag"]) == {"over_budget"} and len(flags) == 9  # the lab's 20 s budget, one run in four
    assert (out / "prices.csv").read_bytes() == Path("prices.csv").read_bytes()
    assert (out / "protocol.yaml").read_bytes() == Path("lab.yaml").read_bytes()
    provenance = json.loads((out / "provenance.json").read_text())
    roles = {r["role"]: r for r in provenance["inputs"]}
    assert {"prices", "protocol", "tool_kinds"} <= set(roles) and all(len(roles[r]["sha256"]) == 64 for r in roles)
    given = provenance["parameters"]
    assert (given["usage_path"], given["flags_path"], given["prices_path"], given["protocol"]) == (
        "usage.csv", "protocol-flags.csv", "prices.csv", "protocol.yaml")
    page = (out / "10_effort_and_protocol.html").read_text(encoding="utf-8")
    assert "EXAMPLE prices" in page and "score_cost_frontier" in page
    assert (out / "figures" / "score_cost_frontier.png").is_file()
    # the audit off: no flags computed; a report folder holding an input is never replaced
    assert main(["report", "--tasks", files["tasks"][0], "--trajectories", "trajectories.jsonl", "--out", "report",
                 "--notebooks", "10", "-p", "n_boot", "200", "--quiet", "--no-progress", "--protocol", "none",
                 "--force"]) == 0  # fmt: skip
    assert not (out / "protocol-flags.csv").exists() and "The protocol audit is off" in (
        out / "10_effort_and_protocol.html").read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["report", "--tasks", files["tasks"][0], "--trajectories", "trajectories.jsonl", "--out", "report",
                 "--prices", "report/usage.csv", "--force", "--quiet"]) == 2
    assert "contains the input" in capsys.readouterr().err
    assert main(["report", "--tasks", files["tasks"][0], "--trajectories", "trajectories.jsonl", "--out", "other",
                 "--prices", "kinds.csv", "--quiet"]) == 2
    assert "kinds.csv" in capsys.readouterr().err and not Path("other").exists()


def test_the_site_reach_page_lists_the_tools_the_name_rule_alone_classified(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    files = _fixture_with_sites(tmp_path / "fixture")
    with (tmp_path / "trajectories.jsonl").open("w") as f:
        for run in (json.loads(line) for line in Path(files["runs"][0]).read_text().splitlines()):
            call = {"id": "c1", "type": "function", "function": {  # structured arguments only: not a web search
                "name": "search_direct_flight", "arguments": json.dumps({"origin": "SFO", "destination": "PEK"})}}
            messages = [{"role": "assistant", "content": None, "tool_calls": [call]},
                        {"role": "tool", "tool_call_id": "c1", "content": "no flight"},
                        {"role": "assistant", "content": run["answer"]}]  # fmt: skip
            f.write(json.dumps({"system": run["system"], "task_id": run["task_id"], "messages": messages}) + "\n")
    status = main(["report", "--tasks", files["tasks"][0], "--trajectories", "trajectories.jsonl", "--out", "report",
                   "--notebooks", "09", "-p", "n_boot", "200", "--quiet", "--no-progress"])  # fmt: skip
    assert status == 0, capsys.readouterr().err
    kinds = pd.read_csv(tmp_path / "report" / "tool-kind-sources.csv")
    assert kinds[["tool", "kind", "decided_by"]].values.tolist() == [["search_direct_flight", "tool", "name"]]
    assert kinds["calls"].sum() == len(Path(files["runs"][0]).read_text().splitlines())
    page = (tmp_path / "report" / "09_site_reach.html").read_text(encoding="utf-8")
    assert "classified by their name alone" in page and "search_direct_flight" in page
    assert json.loads((tmp_path / "report" / "provenance.json").read_text())["parameters"][
        "tool_kind_sources_path"] == "tool-kind-sources.csv"
