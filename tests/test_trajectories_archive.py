"""Zip archives checked member by member before inspect_ai reads one (``sgr_kit.trajectories.archive``).

The bombs here are checked against a small ``limit`` so that nothing large is ever unpacked in
the test process; the same archives at the real limit, read end to end by ``read_inspect_log``,
run in a memory-capped subprocess in ``tests/test_bounded_inputs.py``. Zstandard members are
written as inspect_ai writes its own logs (its ``zipfile_compress_kwargs``, method 93).
"""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.trajectories.archive import MAX_MEMBER_BYTES, check_archive
from sgr_kit.trajectories.read import MAX_LINE_BYTES

LIMIT = 2**20


def lie(path: Path, member: str, size: int) -> None:
    """Make the headers of ``member`` say it unpacks to ``size`` bytes (central directory and local header)."""
    data = bytearray(path.read_bytes())
    name = member.encode()
    cd = data.find(b"PK\x01\x02")
    while cd != -1:
        name_len = struct.unpack_from("<H", data, cd + 28)[0]
        if bytes(data[cd + 46:cd + 46 + name_len]) == name:
            struct.pack_into("<I", data, cd + 24, size)
            local = struct.unpack_from("<I", data, cd + 42)[0]
            struct.pack_into("<I", data, local + 22, size)
        cd = data.find(b"PK\x01\x02", cd + 4)
    path.write_bytes(bytes(data))


def archive(tmp_path: Path, members: dict[str, bytes], *, method: int = zipfile.ZIP_DEFLATED) -> Path:
    path = tmp_path / "run.eval"
    with zipfile.ZipFile(path, "w", method) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def test_members_within_the_limit_pass(tmp_path):
    path = archive(tmp_path, {"header.json": b"{}", "samples/t_001_epoch_1.json": b"x" * (LIMIT - 1)})
    assert check_archive(path, limit=LIMIT) is None
    stored = archive(tmp_path, {"samples/a.json": b"y" * LIMIT}, method=zipfile.ZIP_STORED)
    assert check_archive(stored, limit=LIMIT) is None


def test_a_member_whose_header_says_it_is_too_large_is_refused_naming_file_and_member(tmp_path):
    path = archive(tmp_path, {"header.json": b"{}", "samples/bomb_epoch_1.json": b"0" * (3 * LIMIT)})
    assert path.stat().st_size < 20_000  # a small file ...
    with pytest.raises(SgrKitError, match=r"run\.eval: member samples/bomb_epoch_1\.json unpacks to 3,145,728 bytes "
                                          r"\(as its header says\), more than 1,048,576, the limit of one item"):
        check_archive(path, limit=LIMIT)


def test_a_member_whose_header_lies_is_bounded_as_it_unpacks(tmp_path):
    path = archive(tmp_path, {"header.json": b"{}", "samples/bomb_epoch_1.json": b"0" * (50 * LIMIT)})
    lie(path, "samples/bomb_epoch_1.json", 100)
    assert zipfile.ZipFile(path).getinfo("samples/bomb_epoch_1.json").file_size == 100
    with pytest.raises(SgrKitError, match=r"member samples/bomb_epoch_1\.json unpacks to more than 1,048,576 bytes "
                                          r"\(its header says 100\)"):
        check_archive(path, limit=LIMIT)


def test_a_zstandard_member_whose_header_lies_is_bounded_too(tmp_path):
    compress = pytest.importorskip("inspect_ai._util.zipfile", reason="inspect_ai writes Zstandard members")
    path = tmp_path / "run.eval"
    with zipfile.ZipFile(path, "w", **compress.zipfile_compress_kwargs) as z:
        z.writestr("header.json", b"{}")
        with z.open("samples/bomb_epoch_1.json", "w", force_zip64=True) as member:
            for _ in range(40):
                member.write(b"0" * LIMIT)
    assert zipfile.ZipFile(path).getinfo("samples/bomb_epoch_1.json").compress_type == 93
    with pytest.raises(SgrKitError, match=r"member samples/bomb_epoch_1\.json unpacks to 41,943,040 bytes"):
        check_archive(path, limit=LIMIT)
    lie(path, "samples/bomb_epoch_1.json", 10)
    with pytest.raises(SgrKitError, match=r"member samples/bomb_epoch_1\.json unpacks to more than 1,048,576 bytes "
                                          r"\(its header says 10\)"):
        check_archive(path, limit=LIMIT)


def test_a_large_stored_member_is_refused_by_its_packed_size(tmp_path):
    path = archive(tmp_path, {"samples/a.json": b"y" * (LIMIT + 1)}, method=zipfile.ZIP_STORED)
    lie(path, "samples/a.json", 5)
    with pytest.raises(SgrKitError, match=r"member samples/a\.json is packed in 1,048,577 bytes"):
        check_archive(path, limit=LIMIT)


def test_damaged_archives_are_errors_naming_the_file(tmp_path):
    not_zip = tmp_path / "a.eval"
    not_zip.write_text("not a zip", encoding="utf-8")
    with pytest.raises(SgrKitError, match=r"a\.eval: not a readable inspect_ai eval log \(a \.eval log is a zip archive"):
        check_archive(not_zip)
    path = archive(tmp_path, {"samples/a.json": bytes(range(256)) * (40 * 1024)})  # 10 MiB, packed past 20 KiB
    data = bytearray(path.read_bytes())
    start = data.find(b"samples/a.json") + len("samples/a.json")  # the member's packed data (no extra field)
    data[start] = 0b111  # a final block of the reserved type 3: no deflate reader reads on

    path.write_bytes(bytes(data))
    with pytest.raises(SgrKitError, match=r"member samples/a\.json cannot be unpacked .*the archive is damaged"):
        check_archive(path, limit=LIMIT * 20)
    with pytest.raises(SgrKitError, match=r"missing\.eval: cannot be read"):
        check_archive(tmp_path / "missing.eval")


def test_a_real_inspect_log_passes(tmp_path):
    pytest.importorskip("inspect_ai", reason="the optional [inspect] extra (make setup installs it)")
    from inspect_ai import Task, eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput
    from inspect_ai.solver import solver

    @solver
    def answer():
        async def solve(state, generate):
            state.output = ModelOutput.from_content("mockllm/model", "a|b\n1|2")
            return state

        return solve

    [run] = inspect_eval(Task(dataset=[Sample(id="t_001", input="x")], solver=answer(), name="sgr"),
                         model="mockllm/model", log_dir=str(tmp_path), display="none")  # fmt: skip
    assert {i.compress_type for i in zipfile.ZipFile(run.location).infolist()} == {93}  # inspect_ai's own Zstandard
    assert check_archive(run.location) is None
    assert check_archive(run.location, limit=5000) is None  # every member of this log is smaller


def test_a_member_may_hold_what_one_jsonl_line_may():
    assert MAX_MEMBER_BYTES == MAX_LINE_BYTES == 64 * 2**20
