"""Every input kind, handed a small file that expands, stays within bounded memory and time and names the place.

Each case is a file of at most a few hundred kilobytes built to grow when read: YAML aliases
nine levels of nine deep ("billion laughs", 9**9 values from 340 bytes), a zip member that
unpacks a thousand-fold (and one whose header lies about it), JSON nested 100,000 levels, an
integer of 5,000 digits, a repeat of ``10**30``. Each is read by sgr-kit's own reader of that
kind in a subprocess whose address space is capped (``RLIMIT_AS``, 1.5 GB) and whose time is
bounded: the reader must end with an :class:`~sgr_kit.errors.SgrKitError` naming the file (and
its line or member), never a ``MemoryError``, a traceback or a hang.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path

import pytest

MEMORY = 1536 * 2**20
SECONDS = 60

LAUGHS = "".join(f"{k}: &{k} [{', '.join([f'*{p}'] * 9 if p else ['lol'] * 9)}]\n"
                 for p, k in zip(["", *"abcdefgh"], "abcdefghi"))  # fmt: skip
DEEP = "[" * 100_000 + "]" * 100_000

_READER = textwrap.dedent("""
    import resource, sys
    resource.setrlimit(resource.RLIMIT_AS, ({memory}, {memory}))
    from sgr_kit.errors import SgrKitError
    kind, path = sys.argv[1], sys.argv[2]
    try:
        if kind == "tasks":
            from sgr_kit import load_tasks
            load_tasks(path)
        elif kind == "runs":
            from sgr_kit.load import load_runs
            load_runs(path)
        elif kind == "trajectories":
            from sgr_kit.trajectories import load_trajectories
            load_trajectories(path)
        elif kind == "labels":
            from sgr_kit.load.labels import load_labels
            load_labels(path)
        elif kind == "audit":
            from sgr_kit.load import load_audit
            load_audit(path)
        elif kind == "prices":
            from sgr_kit.trajectories import read_prices
            read_prices(path)
        elif kind == "protocol":
            from sgr_kit.trajectories.protocol import read_protocol
            read_protocol(path)
        elif kind == "tool_kinds":
            from sgr_kit.trajectories import read_tool_kinds
            read_tool_kinds(path)
        elif kind == "rules":
            from sgr_kit.rules import load_rules
            load_rules(path)
        elif kind == "pairing":
            from sgr_kit.prepare.pairing import read_pairing_file
            read_pairing_file(path)
        elif kind == "parameter":
            from sgr_kit.report.parameters import parse_parameter
            parse_parameter("systems", open(path, encoding="utf-8").read())
    except SgrKitError as exc:
        print("SgrKitError:", exc)
        sys.exit(0)
    print("read without an error")
    sys.exit(3)
""").format(memory=MEMORY)


def _eval_bomb(path: Path, *, lie: bool) -> None:
    """A .eval log whose one sample unpacks to 80 MB of zeros (more than a JSONL line may hold) from about 80 KB."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("header.json", json.dumps({"version": 2, "status": "success", "eval": {"task": "t"}}))
        with z.open("samples/t_001_epoch_1.json", "w", force_zip64=True) as member:
            for _ in range(80):
                member.write(b"0" * 2**20)
    if lie:  # the headers say 100 bytes; only unpacking tells
        data = bytearray(path.read_bytes())
        at = data.find(b"PK\x01\x02")
        while at != -1:
            if data[at + 46:at + 46 + 25] == b"samples/t_001_epoch_1.json"[:25]:
                data[at + 24:at + 28] = (100).to_bytes(4, "little")
                extra = at + 46 + int.from_bytes(data[at + 28:at + 30], "little")
                if data[extra:extra + 2] == b"\x01\x00":  # ZIP64 extra field: its sizes too
                    data[extra + 4:extra + 12] = (100).to_bytes(8, "little")
            at = data.find(b"PK\x01\x02", at + 4)
        path.write_bytes(bytes(data))


def _in_folder(folder: Path, name: str, text: str) -> None:
    """``folder/<system>/<task>.jsonl``: a trajectory whose place names its system and task."""
    (folder / name).parent.mkdir(parents=True)
    (folder / name).write_text(text, encoding="utf-8")


def _task(**more) -> str:
    return json.dumps({"task_id": "t_001", "domain": "NVD", "oracle_answer": "a|b\n1|2",
                       "output_format": "a|b rows", **more})  # fmt: skip


#: (kind, file name, how to write it, what the error must say)
CASES = [
    ("tasks", "tasks.jsonl", lambda p: p.write_text(_task() + "\n" + DEEP + "\n"), r"tasks\.jsonl:2: .*nested"),
    ("tasks", "huge.jsonl", lambda p: p.write_text(_task()[:-1] + ', "oracle_answer_zh": ' + "9" * 5000 + "}\n"),
     r"huge\.jsonl:1: holds an integer of more than 4300 digits"),
    ("runs", "runs.jsonl", lambda p: p.write_text(json.dumps({"system": "m", "task_id": "t", "answer": "x"}) + "\n"
                                                  + '{"system": "m", "task_id": "t", "answer": ' + DEEP + "}\n"),
     r"runs\.jsonl:2: .*nested"),
    ("runs", "repeat.jsonl", lambda p: p.write_text(json.dumps({"system": "m", "task_id": "t", "answer": "x",
                                                                "repeat": 10**30}) + "\n"),
     r"repeat\.jsonl:1: .*repeat"),
    ("trajectories", "steps.jsonl", lambda p: p.write_text(json.dumps({"system": "m", "task_id": "t", "steps": [
        {"kind": "answer", "text": "x"}]}) + "\n" + DEEP + "\n"), r"steps\.jsonl:2: .*nested"),
    ("trajectories", "codex", lambda p: _in_folder(p, "m/t_001.jsonl", json.dumps(
        {"type": "thread.started", "thread_id": "x"}) + "\n" + '{"type": "item.completed", "item": ' + DEEP + "}\n"),
     r"t_001\.jsonl:2: .*nested"),
    ("trajectories", "bomb.eval", lambda p: _eval_bomb(p, lie=False),
     r"bomb\.eval: member samples/t_001_epoch_1\.json unpacks to 83,886,080 bytes \(as its header says\)"),
    ("trajectories", "lying.eval", lambda p: _eval_bomb(p, lie=True),
     r"lying\.eval: member samples/t_001_epoch_1\.json unpacks to more than 67,108,864 bytes \(its header says 100\)"),
    ("labels", "labels.csv", lambda p: p.write_text("system,task_id,repeat,annotator,label\nm,t," + "9" * 5000
                                                    + ",ann,correct\n"), r"labels\.csv:2.*repeat"),
    ("audit", "audit.csv", lambda p: p.write_text("system,task_id,base_id,family,label\n" + "m,t,t,f,"
                                                  + "x" * 200_000 + "\n"), r"audit\.csv:2: not a readable CSV file \(field larger than field limit"),
    ("prices", "prices.yaml", lambda p: p.write_text(LAUGHS), r"prices\.yaml:1: column 4: a YAML anchor \(&a\)"),
    ("protocol", "protocol.yaml", lambda p: p.write_text(LAUGHS), r"protocol\.yaml:1: column 4: a YAML anchor"),
    ("tool_kinds", "kinds.yaml", lambda p: p.write_text(LAUGHS), r"kinds\.yaml:1: column 4: a YAML anchor"),
    ("rules", "rules.yaml", lambda p: p.write_text("tasks:\n" + textwrap.indent(LAUGHS, "  ")),
     r"rules\.yaml:2: column 6: a YAML anchor"),
    ("rules", "deep.yaml", lambda p: p.write_text("tasks: " + "[" * 5000 + "]" * 5000 + "\n"),
     r"deep\.yaml:1: column \d+: YAML nested 101 or more levels deep"),
    ("pairing", "pairing.json", lambda p: p.write_text(DEEP), r"pairing\.json.*nested"),
    ("parameter", "value.txt", lambda p: p.write_text("[&a [x, x, x], *a, *a, *a]"),
     r"-p systems: .*a YAML anchor or alias"),
]


@pytest.mark.parametrize(("kind", "name", "write", "message"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_a_small_file_that_expands_is_refused_in_bounded_memory_and_time_naming_the_place(tmp_path, kind, name,
                                                                                         write, message):
    if name.endswith(".eval"):
        pytest.importorskip("inspect_ai", reason="the optional [inspect] extra (make setup installs it)")
    path = tmp_path / name
    write(path)
    assert sum(f.stat().st_size for f in [path, *path.rglob("*")] if f.is_file()) < 400_000  # small
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-c", _READER, kind, str(path)], capture_output=True, text=True,
                          timeout=SECONDS)  # fmt: skip
    seconds = time.monotonic() - start
    assert done.returncode == 0, (done.stdout + done.stderr)[-2000:]
    assert done.stdout.startswith("SgrKitError:"), done.stdout
    import re

    assert re.search(message, done.stdout), done.stdout
    assert seconds < SECONDS
