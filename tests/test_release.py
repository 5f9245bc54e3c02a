"""The release check: build the wheel, install it outside the checkout, use it from another folder.

A researcher installs sgr-kit into their own environment and runs it from their own folder:
the wheel must carry the notebooks, the paper's reference tables, the report templates and
the demo, and find them with importlib.resources. This test builds the wheel, installs it
with its dependencies into a fresh virtual environment in a temporary folder, and from
another temporary folder runs ``sgr-kit --version``, ``sgr-kit score`` on a small fixture,
``sgr-kit audit --all`` and ``sgr-kit report`` on the demo, then checks the report is complete.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import sgr_kit

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


def _run(args, cwd, env=None, timeout=900) -> subprocess.CompletedProcess:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{args} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory, wheel, installed_wheel):
    """The session's virtual environment with the wheel installed (tests/built_once.py), and a working folder outside the checkout."""
    work = tmp_path_factory.mktemp("elsewhere")
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    environ["PATH"] = f"{installed_wheel / 'bin'}{os.pathsep}{environ.get('PATH', '')}"
    return {"wheel": wheel, "python": installed_wheel / "bin" / "python", "sgr_kit": installed_wheel / "bin" / "sgr-kit",
            "work": work, "env": environ}


def test_the_wheel_carries_the_package_data(installed):
    import zipfile

    names = set(zipfile.ZipFile(installed["wheel"]).namelist())
    for needed in ("sgr_kit/notebooks/01_main_table.ipynb", "sgr_kit/data/reference/table2_main.csv",
                   "sgr_kit/data/demo/runs.jsonl", "sgr_kit/data/demo/audit.csv",
                   "sgr_kit/report/templates/sgr_offline/index.html.j2"):
        assert needed in names, needed
    shipped = {n.split("/")[-1] for n in names if n.startswith("sgr_kit/notebooks/") and n.endswith(".ipynb")}
    in_checkout = {p.name for p in (ROOT / "notebooks").glob("*.ipynb")}
    assert shipped == in_checkout


def test_installed_package_is_not_the_checkout(installed):
    where = _run([str(installed["python"]), "-c", "import sgr_kit, sgr_kit.resources as r; "
                  "print(sgr_kit.__file__); print(r.notebooks_dir()); print(r.reference_dir())"],
                 cwd=installed["work"], env=installed["env"]).stdout.split()
    assert all(str(ROOT) not in line for line in where), where
    assert all("site-packages" in line for line in where), where


def test_version(installed):
    out = _run([str(installed["sgr_kit"]), "--version"], cwd=installed["work"], env=installed["env"]).stdout
    assert out.strip() == f"sgr-kit {sgr_kit.__version__}"


def test_score_a_small_fixture(installed):
    work = installed["work"]
    tasks = [{"task_id": t, "domain": "NVD", "oracle_answer": "cve|score\nCVE-1|9.8\nCVE-2|7.5",
              "output_format": "Return cve|score rows."} for t in ("nvd_001", "nvd_001-g")]
    (work / "tasks.jsonl").write_text("\n".join(json.dumps(t) for t in tasks) + "\n")
    runs = [{"system": "mine", "task_id": "nvd_001", "answer": "CVE-1|9.8\nCVE-2|7.5"},
            {"system": "mine", "task_id": "nvd_001-g", "answer": "CVE-1|9.8"}]
    (work / "runs.jsonl").write_text("\n".join(json.dumps(r) for r in runs) + "\n")
    _run([str(installed["sgr_kit"]), "score", "--tasks", "tasks.jsonl", "--runs", "runs.jsonl", "--out",
          "scores.csv", "--no-progress"], cwd=work, env=installed["env"])
    summary = _run([str(installed["sgr_kit"]), "summary", "scores.csv"], cwd=work, env=installed["env"]).stdout
    assert "mine" in summary and "100.00" in summary


def test_audit_all(installed):
    out = _run([str(installed["sgr_kit"]), "audit", "--all"], cwd=installed["work"], env=installed["env"]).stdout
    assert "derived numbers checked" in out and "Kimi K2.5" in out


def test_demo_report_is_complete(installed):
    from sgr_kit.report.build import NOTEBOOKS

    work = installed["work"]
    _run([str(installed["sgr_kit"]), "report", "--out", "demo-report", "--quiet", "-p", "n_boot", "200"], cwd=work,
         env=installed["env"])  # fmt: skip
    report = work / "demo-report"
    for name in NOTEBOOKS:
        assert (report / f"{name}.html").is_file(), name
        assert (report / f"{name}.ipynb").is_file(), name
    for name in ("index.html", "scores.csv", "cells.parquet", "summary.txt", "paper-audit.csv", "audit-labels.csv",
                 "provenance.json"):
        assert (report / name).is_file(), name
    provenance = json.loads((report / "provenance.json").read_text())
    assert all(n["status"] == "ok" for n in provenance["notebooks"]), provenance["notebooks"]
    assert provenance["synthetic"] is True
    assert any((report / "figures").glob("*.png")) and any((report / "tables").glob("*.tex"))
    assert "SYNTHETIC DATA" in (report / "index.html").read_text()
