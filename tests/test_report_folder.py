"""The report folder: --force replaces only a report, never an input; a finished build moves in with the umask's modes."""

from __future__ import annotations

import json
import os

import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.report.folder import REPORT_KIND, check_report_folder, install_report, is_report, report_files


def _report(folder, *files):
    folder.mkdir(parents=True, exist_ok=True)
    for name in files:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("x")
    (folder / "provenance.json").write_text(json.dumps({"report": REPORT_KIND, "files": [*files, "provenance.json"]}))
    return folder


def test_a_new_or_empty_folder_is_accepted(tmp_path):
    assert check_report_folder(tmp_path / "new") == (tmp_path / "new").absolute()
    (tmp_path / "empty").mkdir()
    assert check_report_folder(tmp_path / "empty")


def test_a_full_folder_needs_force_and_must_be_a_report(tmp_path):
    mine = tmp_path / "mine"
    (mine / "src").mkdir(parents=True)
    (mine / "src" / "thesis.tex").write_text("mine")
    with pytest.raises(SgrKitError, match="is not empty; pass --force"):
        check_report_folder(mine)
    with pytest.raises(SgrKitError, match=r"holds src but no sgr-kit report"):
        check_report_folder(mine, force=True)
    report = _report(tmp_path / "report", "index.html", "figures/a.png")
    assert check_report_folder(report, force=True) == report.absolute()
    (report / "figures" / "mine.png").write_text("mine")
    with pytest.raises(SgrKitError, match=r"holds files that are not part of its report: figures/mine.png"):
        check_report_folder(report, force=True)


def test_a_folder_that_is_or_holds_an_input_is_refused_even_with_force(tmp_path):
    report = _report(tmp_path / "report", "index.html")
    (report / "runs.jsonl").write_text("{}")
    with pytest.raises(SgrKitError, match=r"contains the input .*runs.jsonl; .*with or without --force"):
        check_report_folder(report, force=True, inputs=[report / "runs.jsonl"])
    (tmp_path / "data").mkdir()
    with pytest.raises(SgrKitError, match=r"is the input"):
        check_report_folder(tmp_path / "data", inputs=[tmp_path / "data"])


def test_provenance_says_what_is_a_report():
    assert is_report({"report": REPORT_KIND})
    assert is_report({"sgr_kit": "0.1", "scoring": {}, "notebooks": [], "inputs": []})  # written before "report"
    assert not is_report({"title": "my notes"}) and not is_report(None)


def test_an_installed_report_has_the_umasks_modes(tmp_path):
    import tempfile

    building = tempfile.mkdtemp(dir=tmp_path)
    (tmp_path / "x").mkdir()
    out = tmp_path / "report"
    install_report(type(tmp_path)(building), out)
    mask = os.umask(0)
    os.umask(mask)
    assert out.stat().st_mode & 0o777 == 0o777 & ~mask
    assert report_files(out) == []


def test_the_next_build_that_claims_a_folder_removes_a_killed_builds_folder_and_names_a_moved_aside_report(tmp_path):
    from sgr_kit.report.folder import ReportClaim, clean_leftovers

    building = tmp_path / ".R.building-k1ll3d_x"  # what a build killed with SIGKILL leaves (mkdtemp's name)
    (building / "tables").mkdir(parents=True)
    (building / "tables" / "main_table.csv").write_text("system\r\nA\r\n", encoding="utf-8")
    previous = tmp_path / ".R.previous-abcd1234"  # a report moved aside when the kill came during the install
    (previous / "R").mkdir(parents=True)
    elsewhere = tmp_path / "precious"
    elsewhere.mkdir()
    (tmp_path / ".R.building-l1nk0000").symlink_to(elsewhere)  # not a folder sgr-kit made: left alone
    (tmp_path / ".R.building-notes").mkdir()  # not sgr-kit's naming: left alone
    (tmp_path / ".S.building-abcd1234").mkdir()  # another folder's: left alone
    with ReportClaim(tmp_path / "R") as claim:
        removed, kept = clean_leftovers(claim)
    assert removed == [building] and kept == [previous]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".R.building-l1nk0000", ".R.building-notes",
                                                          ".R.previous-abcd1234", ".S.building-abcd1234", "precious"]
