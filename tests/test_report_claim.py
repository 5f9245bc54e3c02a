"""The report folder is claimed for the whole build, and what appeared there meanwhile is never replaced.

- a second build to the same ``--out`` stops at once, naming the first (a lock file beside it);
- the final move checks again: a folder made, replaced or changed at ``--out`` during the build
  is left as it is, the new report is kept beside it, and the exit status is 1;
- a second and third Ctrl-C during the cleanup of an interrupted build still end with 130 and
  leave no build folder.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.report import build_report
from sgr_kit.report.folder import FolderState, ReportClaim, ReportFolderChanged, folder_state, install_report
from sgr_kit.report.folder import rename_no_replace
from sgr_kit.testing import PAUSE_DIR, held
from test_report import write_fixture


@pytest.fixture(scope="module")
def fixture(tmp_path_factory):
    return write_fixture(tmp_path_factory.mktemp("fixture"))


def _command(fixture, out: Path, *more: str) -> list[str]:
    return [sys.executable, "-m", "sgr_kit.cli", "report", "--tasks", *fixture["tasks"], "--runs", *fixture["runs"],
            "--out", str(out), "--no-progress", "-p", "n_boot", "100", *more]


def _kept(message: str) -> Path:
    found = re.search(r"The new report is in (\S+?)(;|$)", message)
    assert found, message
    return Path(found.group(1))


def _env(pauses: Path) -> dict[str, str]:
    """The environment of a build that a test holds at pause points (sgr_kit.testing) made in ``pauses``."""
    pauses.mkdir(exist_ok=True)
    return {**os.environ, PAUSE_DIR: str(pauses)}


@pytest.fixture(scope="module")
def two_builds(fixture, tmp_path_factory):
    """A build of page 01 running, and a second build to the same folder started while it runs."""
    folder = tmp_path_factory.mktemp("two")
    pauses = tmp_path_factory.mktemp("pauses")
    out = folder / "R2"
    first = subprocess.Popen(_command(fixture, out, "--notebooks", "01"), stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, env=_env(pauses))
    with held(first, "report-scoring", pauses):  # the first holds its claim while the second runs
        building = list(folder.glob(".R2.building-*"))
        second = subprocess.run(_command(fixture, out, "--notebooks", "03"), capture_output=True, text=True,
                                timeout=300)
    _, first_err = first.communicate(timeout=300)
    return {"folder": folder, "out": out, "first": first, "first_err": first_err, "second": second,
            "building": building}


@pytest.mark.slow
@pytest.mark.concurrent
def test_a_second_build_to_the_same_folder_stops_at_once_naming_the_first(two_builds):
    second, first = two_builds["second"], two_builds["first"]
    assert second.returncode == 2
    assert re.search(rf"sgr-kit: error: report folder \S*R2: another build is writing it \(process {first.pid} ",
                     second.stderr), second.stderr
    assert "--notebooks 01" in second.stderr  # the other build's command
    assert "scores:" not in second.stderr  # at once: before scoring or starting a kernel
    assert len(two_builds["building"]) == 1  # the first build's folder, made before the second started
    assert first.returncode == 0, two_builds["first_err"]
    provenance = json.loads((two_builds["out"] / "provenance.json").read_text())
    assert [n["name"] for n in provenance["notebooks"]] == ["01_main_table"]  # the first build's report, whole
    assert sorted(p.name for p in two_builds["folder"].iterdir()) == ["R2"]  # no lock file, no build folder left


@pytest.mark.slow
@pytest.mark.concurrent
def test_a_build_prints_no_event_loop_warning_and_no_kernel_log(two_builds):
    err = two_builds["first_err"]
    assert "01_main_table" in err  # the build's own lines are there
    assert "event loop" not in err
    assert "without encryption" not in err and "IPKernelApp" not in err


@pytest.mark.concurrent
def test_a_lock_left_by_a_build_that_was_killed_does_not_block(tmp_path):
    out = tmp_path / "R"
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from pathlib import Path; "
                               "from sgr_kit.report.folder import ReportClaim; "
                               f"c = ReportClaim(Path({str(out)!r}), command='holder'); print('held', flush=True); "
                               "sys.stdin.readline()"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    with pytest.raises(SgrKitError, match=rf"another build is writing it \(process {holder.pid} .*'holder'"):
        ReportClaim(out)
    holder.kill()  # killed while it holds the lock
    holder.wait()
    holder.stdin.close()
    assert (tmp_path / ".R.lock").exists()  # killed: its lock file stays, its lock does not
    with ReportClaim(out) as claim:
        assert claim.info["pid"] == os.getpid()
    assert not (tmp_path / ".R.lock").exists()


def _holder(out: Path) -> subprocess.Popen:
    holder = subprocess.Popen([sys.executable, "-c", "import sys; from pathlib import Path; "
                               "from sgr_kit.report.folder import ReportClaim; "
                               f"c = ReportClaim(Path({str(out)!r}), command='holder'); print('held', flush=True); "
                               "sys.stdin.readline(); c.release()"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)  # fmt: skip
    assert holder.stdout.readline().strip() == "held"
    return holder


@pytest.mark.slow
def test_one_claim_per_real_folder_whatever_name_leads_to_it(tmp_path):
    # --out real and --out link (a link to real), or a name through a linked parent: one folder, one claim
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    (tmp_path / "parent-link").symlink_to(tmp_path)
    for first, second in ((real, tmp_path / "link"), (tmp_path / "link", real),
                          (tmp_path / "parent-link" / "real", tmp_path / "link")):  # fmt: skip
        holder = _holder(first)
        try:
            with pytest.raises(SgrKitError, match=rf"report folder {re.escape(str(real))}: another build is writing it "
                                                  rf"\(process {holder.pid} .*'holder'"):  # fmt: skip
                ReportClaim(second)
        finally:
            holder.stdin.close()
            holder.wait(timeout=30)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "parent-link", "real"]  # no lock file left


@pytest.mark.slow
def test_an_out_that_is_a_symlink_is_written_through_and_stays_a_link(fixture, tmp_path):
    # writing through is what a user who chose to link the folder expects; the link is never replaced by a folder
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    result = build_report(fixture["tasks"], fixture["runs"], link, notebooks=["01"], parameters={"n_boot": 100},
                          progress=False, workers=1)  # fmt: skip
    assert result.ok
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert json.loads((real / "provenance.json").read_text())["report"] == "sgr-kit report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "real"]  # no build folder, no lock file beside either
    with pytest.raises(SgrKitError, match=rf"report folder {re.escape(str(link))} is not empty; pass --force"):
        build_report(fixture["tasks"], fixture["runs"], link, notebooks=["01"], parameters={"n_boot": 100},
                     progress=False, workers=1)  # fmt: skip


@pytest.mark.slow
@pytest.mark.concurrent
def test_a_folder_made_during_the_build_is_never_deleted_and_the_report_is_kept_beside(fixture, tmp_path):
    # the case: `sgr-kit report --out R1 &`, then `mkdir R1; echo precious > R1/notes.txt`
    out = tmp_path / "R1"
    pauses = tmp_path.parent / f"{tmp_path.name}-pauses"
    build = subprocess.Popen(_command(fixture, out, "--notebooks", "01"), stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, env=_env(pauses))
    with held(build, "report-page-running", pauses):  # scored, its page running: the build is not done
        assert any((b / "scores.csv").exists() for b in tmp_path.glob(".R1.building-*"))
        out.mkdir()
        (out / "notes.txt").write_text("precious")
    _, err = build.communicate(timeout=300)
    assert build.returncode == 1, err
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    assert (out / "notes.txt").read_text() == "precious"
    kept = _kept(err)
    assert kept.parent == tmp_path and kept.name.startswith("R1.new-"), kept
    assert "sgr-kit: error: report folder" in err and "nothing in it was replaced or deleted" in err
    assert json.loads((kept / "provenance.json").read_text())["report"] == "sgr-kit report"
    assert (kept / "01_main_table.html").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["R1", kept.name])


def _replace_before_install(monkeypatch, change) -> None:
    """Run ``change(out)`` just before the build moves its report into place."""
    import sgr_kit.report.build as build

    real = build.install_report

    def install(building, out, expected=None):
        change(out)
        return real(building, out, expected)

    monkeypatch.setattr(build, "install_report", install)


@pytest.fixture
def old_report(fixture, tmp_path):
    out = tmp_path / "report"
    build_report(fixture["tasks"], fixture["runs"], out, notebooks=[], progress=False)
    return out


def test_a_report_replaced_meanwhile_by_another_folder_is_left_as_it_is(fixture, old_report, monkeypatch):
    # the same provenance, another folder (moved away and copied back): not the folder checked at the start
    def swap(out):
        out.rename(out.parent / "moved-away")
        shutil.copytree(out.parent / "moved-away", out)
        (out / "mine.txt").write_text("mine")

    _replace_before_install(monkeypatch, swap)
    with pytest.raises(ReportFolderChanged) as caught:
        build_report(fixture["tasks"], fixture["runs"], old_report, notebooks=[], progress=False, force=True)
    assert (old_report / "mine.txt").read_text() == "mine"
    assert (old_report.parent / "moved-away" / "provenance.json").is_file()
    assert (caught.value.kept / "provenance.json").is_file() and str(caught.value.kept) in str(caught.value)
    assert not list(old_report.parent.glob(".report*"))  # no lock, build or previous folder left


def test_a_report_whose_provenance_changed_meanwhile_is_left_as_it_is(fixture, old_report, monkeypatch):
    def rewrite(out):
        (out / "provenance.json").write_text((out / "provenance.json").read_text() + "\n")

    _replace_before_install(monkeypatch, rewrite)
    before = (old_report / "provenance.json").read_text() + "\n"
    with pytest.raises(ReportFolderChanged, match="changed during the build"):
        build_report(fixture["tasks"], fixture["runs"], old_report, notebooks=[], progress=False, force=True)
    assert (old_report / "provenance.json").read_text() == before


def test_an_unchanged_report_is_replaced(fixture, old_report):
    inode = os.stat(old_report).st_ino
    result = build_report(fixture["tasks"], fixture["runs"], old_report, notebooks=[], progress=False, force=True)
    assert result.folder == old_report and os.stat(old_report).st_ino != inode
    assert sorted(p.name for p in old_report.parent.iterdir()) == ["report"]


def test_what_the_install_moved_aside_is_put_back_when_it_is_not_the_checked_report(tmp_path, monkeypatch):
    # swapped between the last check and the move aside: the move aside shows it, and it goes back
    import sgr_kit.report.folder as folder

    out, building = tmp_path / "report", tmp_path / ".building"
    out.mkdir()
    (out / "provenance.json").write_text('{"report": "sgr-kit report"}')
    expected = folder_state(out)
    shutil.rmtree(out)
    out.mkdir()
    (out / "notes.txt").write_text("precious")
    building.mkdir()
    (building / "index.html").write_text("new")
    calls = []
    real = folder.folder_state

    def first_call_sees_the_old_report(path):
        calls.append(path)
        return expected if len(calls) == 1 else real(path)

    monkeypatch.setattr(folder, "folder_state", first_call_sees_the_old_report)
    with pytest.raises(ReportFolderChanged) as caught:
        install_report(building, out, expected)
    assert (out / "notes.txt").read_text() == "precious" and sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    assert (caught.value.kept / "index.html").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["report", caught.value.kept.name])


def test_the_final_rename_never_replaces_even_an_empty_folder(tmp_path):
    source, target = tmp_path / "new", tmp_path / "out"
    source.mkdir()
    (source / "index.html").write_text("new")
    target.mkdir()  # os.rename would replace an empty folder
    with pytest.raises(FileExistsError):
        rename_no_replace(source, target)
    assert (source / "index.html").is_file() and target.is_dir() and not list(target.iterdir())
    target.rmdir()
    rename_no_replace(source, target)
    assert (target / "index.html").read_text() == "new"
    assert folder_state(tmp_path / "missing") == FolderState(False)


@pytest.mark.slow
@pytest.mark.concurrent
@pytest.mark.parametrize("when", ["scoring", "pages"])
def test_a_second_and_third_ctrl_c_during_cleanup_still_end_with_130_and_leave_no_build_folder(fixture, tmp_path,
                                                                                                  when):
    area, pauses = tmp_path / "area", tmp_path / "pauses"
    out = area / "report"
    out.mkdir(parents=True)
    (out / "provenance.json").write_text(json.dumps({"report": "sgr-kit report"}))
    proc = subprocess.Popen(_command(fixture, out, "--force", "--notebooks", "01,03", "--workers", "2"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env=_env(pauses))
    os.mkfifo(pauses / "report-cleanup")  # ahead: the build gets there on its own after the first Ctrl-C
    try:
        # the first Ctrl-C while the build scores, or while a page runs in its kernel
        with held(proc, {"scoring": "report-scoring", "pages": "report-page-running"}[when], pauses):
            os.killpg(proc.pid, signal.SIGINT)  # the terminal signals the whole process group
            with held(proc, "report-cleanup", pauses):  # the second and third while it cleans up
                os.killpg(proc.pid, signal.SIGINT)
                os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "interrupted; unfinished output files were removed" in err
    assert "Traceback" not in err
    assert sorted(p.name for p in area.iterdir()) == ["report"]  # no build folder, no lock
    assert sorted(p.name for p in out.iterdir()) == ["provenance.json"]


def test_a_file_made_at_the_folder_during_the_build_is_kept_and_named(tmp_path):
    out, building = tmp_path / "report", tmp_path / ".building"
    expected = folder_state(out)  # nothing, when the build started
    building.mkdir()
    (building / "index.html").write_text("new")
    out.write_text("my notes")
    with pytest.raises(ReportFolderChanged, match=r"it held nothing when the build started and now holds a file"):
        install_report(building, out, expected)
    assert out.read_text() == "my notes"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("report.new-")]
