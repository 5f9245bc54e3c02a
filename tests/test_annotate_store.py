"""The label store: one annotator's own file, written whole and atomically at every label."""

from __future__ import annotations

import os
import subprocess
import sys

import pandas as pd
import pytest

from sgr_kit.annotate.store import LabelStore, first_unlabelled, open_labels, write_label_file
from sgr_kit.errors import SgrKitError
from sgr_kit.load.labels import load_labels
from sgr_kit.schema import LABEL_COLUMNS


def test_a_new_file_is_created_with_its_header(tmp_path):
    path = tmp_path / "sub" / "ann.csv"
    store = open_labels(path, "ann")
    assert path.read_text() == ",".join(LABEL_COLUMNS) + "\n"
    assert len(store) == 0 and load_labels(path).empty


def test_each_set_is_on_disk_at_once_and_reads_back(tmp_path):
    path = tmp_path / "ann.csv"
    store = LabelStore(path, "ann")
    store.set("m", "t1", 0, "Criterion Mismatch", note="used the wrong\nfield")
    on_disk = load_labels(path)
    assert on_disk[["system", "task_id", "repeat", "annotator", "label", "note"]].values.tolist() == [
        ["m", "t1", 0, "ann", "criterion_mismatch", "used the wrong field"]]
    assert on_disk.loc[0, "labelled_at"].endswith("+00:00")
    store.set("m", "t1", 0, "correct")  # a new label replaces the old one, in place
    store.set("n", "t1", 0, "not_analyzable", note="no trajectory")
    again = LabelStore(path, "ann")
    assert again.labels["label"].tolist() == ["correct", "not_analyzable"]
    assert again.get("n", "t1", 0)["note"] == "no trajectory"
    assert ("m", "t1", 0) in again and ("x", "t1", 0) not in again
    again.remove("m", "t1", 0)
    assert load_labels(path)["system"].tolist() == ["n"]


def test_no_temporary_file_is_left_and_a_failed_write_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "ann.csv"
    store = LabelStore(path, "ann")
    store.set("m", "t1", 0, "correct")
    before = path.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".ann.csv.lock", "ann.csv"]  # the lock stays, empty

    def broken(fd):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", broken)
    with pytest.raises(SgrKitError, match=r"writing failed \(disk full\)"):
        store.set("m", "t2", 0, "scope_drift")
    assert path.read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [".ann.csv.lock", "ann.csv"]
    assert ("m", "t2", 0) not in store


@pytest.mark.concurrent
def test_a_killed_process_loses_no_label_it_reported_written(tmp_path):
    # a child process labels three answers and is killed hard (no clean-up) right after
    path = tmp_path / "ann.csv"
    code = (
        "import os, signal\n"
        "from sgr_kit.annotate.store import LabelStore\n"
        f"s = LabelStore({str(path)!r}, 'ann')\n"
        "for t in ('t1', 't2', 't3'):\n"
        "    s.set('m', t, 0, 'scope_drift')\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=False)
    store = LabelStore(path, "ann")
    assert store.labels["task_id"].tolist() == ["t1", "t2", "t3"]
    assert store.first_unlabelled([("m", f"t{i}", 0) for i in range(1, 6)]) == 3


def test_another_annotators_file_is_never_overwritten(tmp_path):
    path = tmp_path / "ann.csv"
    LabelStore(path, "ann").set("m", "t1", 0, "correct")
    before = path.read_text()
    with pytest.raises(SgrKitError, match=r"holds labels of 'ann', not of 'bob'"):
        LabelStore(path, "bob")
    assert path.read_text() == before


def test_a_file_that_is_not_a_label_file_is_refused_untouched(tmp_path):
    path = tmp_path / "notes.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(SgrKitError, match=r"notes\.csv:1: label file lacks column"):
        LabelStore(path, "ann")
    assert path.read_text() == "a,b\n1,2\n"
    with pytest.raises(SgrKitError, match=r"expected a file name ending in \.csv"):
        LabelStore(tmp_path / "x.txt", "ann")


@pytest.mark.parametrize("name", ["", "  ", "a|b", "all"])
def test_reserved_annotator_names_are_refused(tmp_path, name):
    with pytest.raises(SgrKitError, match="expected a non-empty name"):
        LabelStore(tmp_path / "x.csv", name)


def test_unknown_label_is_refused_before_writing(tmp_path):
    store = LabelStore(tmp_path / "ann.csv", "ann")
    with pytest.raises(SgrKitError, match=r"label 'typo': expected one of scope_drift"):
        store.set("m", "t1", 0, "typo")
    with pytest.raises(SgrKitError, match=r"repeat 'x': expected a whole number"):
        store.set("m", "t1", "x", "correct")
    assert len(load_labels(tmp_path / "ann.csv")) == 0


def test_two_stores_of_one_annotator_keep_both_labels(tmp_path):
    path = tmp_path / "ann.csv"
    first, second = LabelStore(path, "ann"), LabelStore(path, "ann")
    first.set("m", "t1", 0, "correct")
    os.utime(path, ns=(1, 1))  # make sure the change is visible even on coarse clocks
    second.set("m", "t2", 0, "scope_drift")
    assert sorted(load_labels(path)["task_id"]) == ["t1", "t2"]


def test_first_unlabelled_follows_the_sheet_order(tmp_path):
    sheet = pd.DataFrame({"system": ["m", "n", "m"], "task_id": ["t1", "t1", "t2"], "repeat": [0, 0, 0]})
    store = LabelStore(tmp_path / "ann.csv", "ann")
    assert store.first_unlabelled(sheet) == 0
    store.set("m", "t1", 0, "correct")
    store.set("m", "t2", 0, "correct")
    assert store.first_unlabelled(sheet) == 1
    store.set("n", "t1", 0, "correct")
    assert store.first_unlabelled(sheet) is None
    assert first_unlabelled(sheet, set()) == 0
    with pytest.raises(SgrKitError, match="sample: lacks column"):
        first_unlabelled(sheet.drop(columns="repeat"), set())


def test_write_label_file_round_trips_commas_and_quotes(tmp_path):
    row = {"system": "m", "task_id": "t1", "repeat": 0, "annotator": "ann", "label": "correct",
           "note": 'said "x, y"', "labelled_at": ""}
    write_label_file([row], tmp_path / "a.csv")
    assert load_labels(tmp_path / "a.csv").loc[0, "note"] == 'said "x, y"'


_WRITER = """
import sys
from sgr_kit.annotate.store import LabelStore
path, who, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
store = LabelStore(path, "ann")
print("ready", flush=True)
sys.stdin.readline()  # both start writing together
for i in range(n):
    store.set(who, f"t{i:03d}", 0, "scope_drift" if i % 2 else "correct", note=f"{who} {i}")
"""


@pytest.mark.slow
@pytest.mark.concurrent
def test_two_processes_writing_one_file_at_once_keep_every_label(tmp_path):
    # two real processes (two tabs of one annotator), 150 labels each, released at the same moment
    path = tmp_path / "ann.csv"
    LabelStore(path, "ann")
    writers = [subprocess.Popen([sys.executable, "-c", _WRITER, str(path), who, "150"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True) for who in ("tab1", "tab2")]
    for proc in writers:
        assert proc.stdout.readline().strip() == "ready"
    for proc in writers:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for proc in writers:
        proc.stdin.close()
        assert proc.wait(timeout=300) == 0
    labels = load_labels(path)
    assert len(labels) == 300
    assert set(zip(labels["system"], labels["task_id"])) == {(w, f"t{i:03d}") for w in ("tab1", "tab2")
                                                            for i in range(150)}
    assert labels.set_index(["system", "task_id"]).loc[("tab2", "t007"), "note"] == "tab2 7"


def test_a_store_opened_before_another_wrote_keeps_the_others_labels_without_a_clock_change(tmp_path):
    path = tmp_path / "ann.csv"
    first, second = LabelStore(path, "ann"), LabelStore(path, "ann")
    first.set("m", "t1", 0, "correct")
    second.set("m", "t2", 0, "scope_drift")  # no utime: the store reads under the lock, not by the clock
    first.remove("m", "t9", 0)
    assert sorted(load_labels(path)["task_id"]) == ["t1", "t2"] and len(first) == 2


@pytest.mark.concurrent
def test_a_held_lock_is_a_clear_error_naming_the_lock_file(tmp_path, monkeypatch):
    from filelock import FileLock

    from sgr_kit.annotate import store as store_module

    path = tmp_path / "ann.csv"
    store = LabelStore(path, "ann")
    monkeypatch.setattr(store_module, "LOCK_TIMEOUT", 0.2)
    other = subprocess.Popen([sys.executable, "-c", "import sys, filelock; lock = filelock.FileLock(sys.argv[1]); "
                              "lock.acquire(); print('held', flush=True); sys.stdin.readline()",
                              str(store_module.lock_path(path))], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)  # fmt: skip
    try:
        assert other.stdout.readline().strip() == "held"
        with pytest.raises(SgrKitError, match=r"another writer has held its lock .*\.ann\.csv\.lock"):
            store.set("m", "t1", 0, "correct")
    finally:
        other.stdin.close()
        other.wait(timeout=30)
    store.set("m", "t1", 0, "correct")  # released by the other process: writes again
    assert len(load_labels(path)) == 1 and FileLock  # the library is the one the store uses


def test_a_store_given_the_sheet_refuses_unknown_system_task_or_repeat(tmp_path):
    sheet = pd.DataFrame({"system": ["m", "m"], "task_id": ["genome_01", "genome_02"], "repeat": [0, 1]})
    store = LabelStore(tmp_path / "ann.csv", "ann", answers=sheet)
    store.set("m", "genome_02", 1, "correct")
    with pytest.raises(SgrKitError, match=r"system 'NoSuchBot'.*unknown system 'NoSuchBot' \(the sheet has 'm'\)"):
        store.set("NoSuchBot", "genome_02", 1, "correct")
    with pytest.raises(SgrKitError, match=r"unknown task 'genome_99'"):
        store.set("m", "genome_99", 0, "correct")
    with pytest.raises(SgrKitError, match=r"system 'm' has no repeat 0 of task 'genome_02' .*\(repeats: 1\)"):
        store.set("m", "genome_02", 0, "correct")
    assert load_labels(tmp_path / "ann.csv")["task_id"].tolist() == ["genome_02"]
    sheet_path = tmp_path / "sheet.csv"
    sheet.to_csv(sheet_path, index=False)
    by_path = LabelStore(tmp_path / "ann.csv", "ann", answers=sheet_path)
    with pytest.raises(SgrKitError, match=r"only answers of the annotation sheet .*sheet\.csv can be labelled"):
        by_path.set("NoSuchBot", "genome_02", 1, "correct")


@pytest.mark.parametrize("text", ['=HYPERLINK("http://x","y")', "+cmd|' /C calc'!A0", "@SUM(1)", "-2+3+cmd",
                                  "'=1+1", "''@x", "'plain", "-2.5", "\t=1"])
def test_formula_like_names_and_notes_are_written_as_text_and_read_back_as_given(tmp_path, text):
    path = tmp_path / "ann.csv"
    annotator = text.replace("|", "/").strip()  # '|' is reserved in annotator names
    LabelStore(path, annotator).set(text, text, 0, "correct", note=text)
    written = path.read_text().splitlines()[1]
    assert not any(cell.startswith(("=", "+", "@", "\t")) or (cell.startswith("-") and cell != "-2.5")
                   for cell in written.replace('"', "").split(","))
    back = load_labels(path).iloc[0]
    assert (back["system"], back["task_id"], back["annotator"]) == (text.strip(), text.strip(), annotator)
    assert back["note"] == " ".join(text.split())


def _many_writer(path: str, who: str, n: int, start, errors) -> None:
    """One writer process: waits for the shared start, opens the store (a read racing the others' writes), labels ``n``."""
    try:
        start.wait()
        store = LabelStore(path, "ann")
        for i in range(n):
            store.set(who, f"t{i}", 0, "correct", note=f"{who} {i}")
    except BaseException as exc:  # reported to the test, which names it
        errors.put(f"{who}: {type(exc).__name__}: {exc}")
        raise


@pytest.mark.slow  # starts 50 or 200 processes
@pytest.mark.parametrize(("writers", "labels"), [(50, 4), (200, 3)])
def test_many_processes_writing_one_file_at_once_keep_every_label(tmp_path, writers, labels):
    # every process opens its store and writes at once (one start event, no sleeps): a store's first read races
    # the others' writes, so a stamp taken after that read would let a later write put back stale rows
    import multiprocessing

    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    path = tmp_path / "ann.csv"
    LabelStore(path, "ann")
    start, errors = context.Event(), context.Queue()
    procs = [context.Process(target=_many_writer, args=(str(path), f"w{k:03d}", labels, start, errors))
             for k in range(writers)]
    for proc in procs:
        proc.start()
    start.set()
    for proc in procs:
        proc.join(timeout=300)
    failed = [errors.get(timeout=5) for _ in range(sum(p.exitcode != 0 for p in procs))]
    assert not failed, failed[:3]
    kept = load_labels(path)
    assert len(kept) == writers * labels, f"{writers * labels - len(kept)} of {writers * labels} labels lost"
    assert set(zip(kept["system"], kept["task_id"])) == {(f"w{k:03d}", f"t{i}") for k in range(writers)
                                                        for i in range(labels)}


def test_a_killed_writers_temporary_file_is_removed_by_the_next_writer(tmp_path):
    # temporary files of a label file are made only under its lock: the writer holding it knows their maker is gone
    path = tmp_path / "ann.csv"
    store = LabelStore(path, "ann")
    left = tmp_path / ".ann.csv.k1ll3d_x.tmp"
    left.write_text("system,task_id\r\nhalf", encoding="utf-8")
    mine = tmp_path / ".ann.csv.notes.txt"  # not sgr-kit's temporary naming: never touched
    mine.write_text("keep", encoding="utf-8")
    store.set("m", "t1", 0, "correct")
    assert not left.exists() and mine.read_text(encoding="utf-8") == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".ann.csv.lock", ".ann.csv.notes.txt", "ann.csv"]


def test_a_lock_file_that_exists_but_cannot_be_written_is_named_as_such(tmp_path, monkeypatch):
    import errno

    from sgr_kit.annotate import store as store_module

    path = tmp_path / "ann.csv"
    store = LabelStore(path, "ann")

    class Refused:  # what filelock raises when the lock file is there but not writable (a user without permission)
        def __init__(self, lock_file, timeout):
            self.lock_file = lock_file

        def acquire(self):
            raise PermissionError(errno.EACCES, "Permission denied", str(self.lock_file))

    monkeypatch.setattr(store_module, "FileLock", Refused)
    with pytest.raises(SgrKitError, match=r"its lock file .*\.ann\.csv\.lock exists but cannot be opened for writing "
                                          r"\(Permission denied\)"):  # fmt: skip
        store.set("m", "t1", 0, "correct")
    store_module.lock_path(path).unlink()
    with pytest.raises(SgrKitError, match=r"cannot create its lock file .*\.ann\.csv\.lock in .* \(Permission denied\)"):
        store.set("m", "t1", 0, "correct")
