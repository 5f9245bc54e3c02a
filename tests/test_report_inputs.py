"""The report on inputs the demo never shows: one system, few pairs, real tasks, every answer failed.

Each build must exit 0 with every page complete, each section that cannot be computed for
the input saying why on its page, and every figure and table shown once. The builds run
every notebook with few resamples (``n_boot=200``), which keeps the statistics meaningful
and the time modest; the module is marked ``slow`` (several report builds).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import nbformat
import pytest

from sgr_kit.cli import main
from sgr_kit.report import NOTEBOOKS

pytestmark = pytest.mark.slow

RELEASE_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures" / "release-format"
#: A sentence that marks a section the input could not support (Notebook.section).
SKIPPED = "not shown for this input."


def _release_tasks() -> list[dict]:
    if not (RELEASE_DIR / "constraint.jsonl").is_file():
        pytest.skip(f"the release fixtures are not beside the checkout ({RELEASE_DIR} is absent)")
    tasks = []
    for name in ("constraint.jsonl", "goal.jsonl"):
        tasks += [json.loads(line) for line in (RELEASE_DIR / name).read_text(encoding="utf-8").splitlines() if line]
    return tasks


def _perturbed(reference: str, k: int) -> str:
    """The reference with its header kept and some rows changed: the last ``k`` rows dropped, one cell altered."""
    lines = reference.strip().split("\n")
    header, rows = lines[:1], lines[1:]
    kept = rows[: max(1, len(rows) - k)]
    if k % 2 and kept:
        cells = kept[0].split("|")
        cells[-1] = cells[-1] + "x"
        kept[0] = "|".join(cells)
    return "\n".join(header + kept)


def write_inputs(folder: Path, *, systems=("Alpha", "Beta"), tasks=None, prose=False) -> list[str]:
    """A tasks file and a runs file built from the references of the release-format tasks."""
    folder.mkdir(parents=True, exist_ok=True)
    tasks = tasks if tasks is not None else _release_tasks()
    runs = []
    for s, system in enumerate(systems):
        for t, task in enumerate(tasks):
            answer = ("I searched the catalogue but could not assemble the table." if prose
                      else _perturbed(task["oracle_answer"], (s + t) % 3))
            runs.append({"system": system, "task_id": task["task_id"], "answer": answer})
    (folder / "tasks.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tasks), encoding="utf-8")
    (folder / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs), encoding="utf-8")
    return ["--tasks", str(folder / "tasks.jsonl"), "--runs", str(folder / "runs.jsonl")]


def scenario_args(name: str, folder: Path) -> list[str]:
    if name == "demo":
        return []
    if name == "demo, one system":
        return ["-p", "systems", "[GPT-5.5]"]
    if name == "demo, exclude":
        return ["--failure-policy", "exclude"]
    if name == "two systems, four real tasks":
        return write_inputs(folder)
    if name == "one system, one task pair":
        pair = [t for t in _release_tasks() if t["task_id"].startswith("arxiv_")]
        return write_inputs(folder, systems=("Solo",), tasks=pair)
    if name == "every answer fails to parse":
        return write_inputs(folder, prose=True)
    if name == "one system, every answer failed, exclude":
        return [*write_inputs(folder, systems=("Solo",), prose=True), "--failure-policy", "exclude"]
    raise AssertionError(name)


SCENARIOS = ("demo", "demo, one system", "demo, exclude", "two systems, four real tasks",
             "one system, one task pair", "every answer fails to parse", "one system, every answer failed, exclude")
#: Sections each scenario cannot support, per page: (section title, a phrase of the reason the page gives).
ONE_SYSTEM = ("System versus system", "the scores table holds 1")
NOTHING_SCORED = "every one is undefined (no answer with a score"
EXPECTED_SKIPS = {
    "demo, one system": {"02_constraint_vs_goal": [ONE_SYSTEM]},
    "one system, one task pair": {"02_constraint_vs_goal": [ONE_SYSTEM]},
    "one system, every answer failed, exclude": {
        "01_main_table": [("Item-F1 against Row-F1", NOTHING_SCORED)],
        "02_constraint_vs_goal": [("Forest plot", NOTHING_SCORED), ONE_SYSTEM],
        "03_cardinality_bins": [("Scores by bin (figure)", NOTHING_SCORED)],
        "04_family_heatmaps": [("Family heatmaps", NOTHING_SCORED)],
        "06_where_points_went": [("Where the points went (figure)", "no rows to draw")],
    },
}


def page_text(html: str) -> str:
    """The text a reader sees: no style or script blocks, no tags, spaces collapsed."""
    html = re.sub(r"<(style|script)[^>]*>.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.fixture(scope="module", params=SCENARIOS)
def report(request, tmp_path_factory):
    if request.param == "demo":  # the session's demo report (tests/built_once.py), built by this same command
        return request.param, 0, request.getfixturevalue("demo_report")
    folder = tmp_path_factory.mktemp("inputs")
    out = folder / "report"
    argv = ["report", *scenario_args(request.param, folder / "data"), "--out", str(out), "-p", "n_boot", "200",
            "--quiet", "--no-progress"]
    status = main(argv)
    return request.param, status, out


def test_the_report_builds_completely_with_exit_status_zero(report):
    name, status, out = report
    assert status == 0, name
    provenance = json.loads((out / "provenance.json").read_text(encoding="utf-8"))
    assert [n["status"] for n in provenance["notebooks"]] == ["ok"] * len(NOTEBOOKS)
    for notebook in NOTEBOOKS:
        executed = nbformat.read(out / f"{notebook}.ipynb", as_version=4)
        errors = [o for c in executed.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
        assert not errors, (name, notebook, errors)
        assert (out / f"{notebook}.html").is_file()
    assert "Some notebooks failed" not in (out / "index.html").read_text(encoding="utf-8")


def test_a_skipped_section_says_why_on_its_page(report):
    name, _, out = report
    expected = EXPECTED_SKIPS.get(name, {})
    for notebook in NOTEBOOKS:
        text = page_text((out / f"{notebook}.html").read_text(encoding="utf-8"))
        wanted = expected.get(notebook, [])
        for title, reason in wanted:
            assert f"{title}: {SKIPPED}" in text, (name, notebook, title)
            assert reason in text.split(f"{title}: {SKIPPED}", 1)[1][:400], (name, notebook, title)
        assert text.count(SKIPPED) == len(wanted), (name, notebook)


def test_every_figure_and_table_is_shown_once(report):
    name, _, out = report
    for notebook in NOTEBOOKS:
        html = (out / f"{notebook}.html").read_text(encoding="utf-8")
        # the whole image, not a prefix: two figures of the same size share their first bytes (the PNG header)
        images = re.findall(r'<img[^>]+src="data:image/png;base64,([A-Za-z0-9+/=]+)', html)
        repeated = [k for k, v in Counter(images).items() if v > 1]
        assert not repeated, (name, notebook, len(repeated))
        # a table shown twice is the same table twice in a row, with no text between (equal tables
        # with their own captions, e.g. three metrics when every answer failed, are different tables)
        tables = list(re.finditer(r"<table[^>]*>(.*?)</table>", html, flags=re.S))
        for first, second in zip(tables, tables[1:]):
            same = (re.sub(r'id="[^"]*"|T_[0-9a-f]+_\w+', "", first.group(1))
                    == re.sub(r'id="[^"]*"|T_[0-9a-f]+_\w+', "", second.group(1)))
            between = page_text(html[first.end():second.start()]).strip()
            assert not (same and not between), (name, notebook)
        assert 'class="dataframe"' not in html, (name, notebook)  # a raw DataFrame repr: index column, 6 decimals
    figures = sorted(p.stem for p in (out / "figures").glob("*.png"))
    shown = sum(len(re.findall(r"<img ", (out / f"{nb}.html").read_text(encoding="utf-8"))) for nb in NOTEBOOKS)
    assert shown == len(figures), (name, shown, figures)
