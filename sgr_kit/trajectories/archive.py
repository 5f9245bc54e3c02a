"""Zip archives (inspect_ai's ``.eval`` logs) checked before anything reads a member: :func:`check_archive`.

A zip member can unpack to a thousand times its packed size (a "zip bomb": a 1 MB ``.eval``
that unpacks to gigabytes), and inspect_ai reads a member whole into memory. So before
inspect_ai opens a log, every member is checked against the limit of one item that sgr-kit
reads anywhere (:data:`MAX_MEMBER_BYTES`, the limit of a JSONL line):

- from the archive's own headers: the size it says the member unpacks to, and its packed size;
- as it unpacks, counted and thrown away chunk by chunk, for a member whose header could
  lie: what it really unpacks to, never more than the limit plus one chunk held at once.

The archive is walked as inspect_ai walks it (``inspect_ai/_util/async_zip.py``, 0.3.x): the
end-of-central-directory record (the comment-less one ending the file, else the last
signature), the ZIP64 record when the end record says so, the central directory at the offset
it gives, and each member's data after its local header; members stored, deflated or
Zstandard-compressed (method 93, inspect_ai's default).
"""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path
from typing import BinaryIO

from ..errors import SgrKitError

__all__ = ["MAX_MEMBER_BYTES", "check_archive"]

#: The most a member may unpack to: the limit of one item anywhere in sgr-kit, the same as one
#: JSONL line's (:data:`sgr_kit.trajectories.records.MAX_LINE_BYTES`, 64 MiB; a test keeps them equal).
MAX_MEMBER_BYTES = 64 * 2**20

_EOCD = b"PK\x05\x06"
_EOCD_SIZE = 22
_MAX_COMMENT = 65535
_CHUNK = 2**20
_STORED, _DEFLATE, _ZSTD = 0, 8, 93


def _read(handle: BinaryIO, start: int, size: int) -> bytes:
    handle.seek(start)
    return handle.read(size)


def _central_directory(handle: BinaryIO, size: int, path: Path) -> tuple[int, int]:
    """The central directory's offset and size, found as inspect_ai finds them."""
    tail_start = max(0, size - (_MAX_COMMENT + _EOCD_SIZE))
    tail = _read(handle, tail_start, size - tail_start)
    at = len(tail) - _EOCD_SIZE
    if at < 0 or tail[at:at + 4] != _EOCD or tail[-2:] != b"\x00\x00":
        at = tail.rfind(_EOCD)
    if at == -1 or at + _EOCD_SIZE > len(tail):
        raise SgrKitError(f"{path}: not a readable inspect_ai eval log (a .eval log is a zip archive; this file has "
                          f"no zip end record)")  # fmt: skip
    disk, cd_disk, n_disk, n_total, cd_size, cd_offset, _ = struct.unpack_from("<HHHHIIH", tail, at + 4)
    if 0xFFFF in (disk, cd_disk, n_disk, n_total) or 0xFFFFFFFF in (cd_size, cd_offset):
        locator = at - 20
        if locator >= 0 and tail[locator:locator + 4] == b"PK\x06\x07":
            end64 = struct.unpack_from("<IQI", tail, locator + 4)[1]
            record = _read(handle, end64, 56) if end64 < size else b""
            if not record.startswith(b"PK\x06\x06") or len(record) < 56:
                raise SgrKitError(f"{path}: not a readable inspect_ai eval log (a damaged ZIP64 end record)")
            cd_size, cd_offset = struct.unpack_from("<QQ", record, 40)
    return cd_offset, cd_size


def _members(handle: BinaryIO, size: int, path: Path) -> list[tuple[str, int, int, int, int]]:
    """``(name, method, packed size, unpacked size, local header offset)`` of every central-directory entry."""
    cd_offset, cd_size = _central_directory(handle, size, path)
    if cd_offset > size or cd_size > size:
        raise SgrKitError(f"{path}: not a readable inspect_ai eval log (its zip directory lies outside the file)")
    buf = _read(handle, cd_offset, cd_size)
    out, pos = [], 0
    while pos + 46 <= len(buf) and buf[pos:pos + 4] == b"PK\x01\x02":
        (method, packed, unpacked, name_len, extra_len, comment_len,
         offset) = (struct.unpack_from("<H", buf, pos + 10)[0], *struct.unpack_from("<II", buf, pos + 20),
                    *struct.unpack_from("<HHH", buf, pos + 28), struct.unpack_from("<I", buf, pos + 42)[0])
        name = buf[pos + 46:pos + 46 + name_len].decode("utf-8", "replace")
        extra = buf[pos + 46 + name_len:pos + 46 + name_len + extra_len]
        if 0xFFFFFFFF in (packed, unpacked, offset):  # ZIP64 sizes, read as inspect_ai reads them
            i = 0
            while i + 4 <= len(extra):
                header, length = struct.unpack_from("<HH", extra, i)
                i += 4
                if header == 0x0001:
                    fields = list(struct.unpack_from(f"<{length // 8}Q", extra, i)) if i + length <= len(extra) else []
                    if unpacked == 0xFFFFFFFF and fields:
                        unpacked = fields.pop(0)
                    if packed == 0xFFFFFFFF and fields:
                        packed = fields.pop(0)
                    if offset == 0xFFFFFFFF and fields:
                        offset = fields.pop(0)
                    break
                i += length
        out.append((name, method, packed, unpacked, offset))
        pos += 46 + name_len + extra_len + comment_len
    return out


class _Slice:
    """The ``size`` bytes of ``handle`` from where it stands, as a file a decompressor reads."""

    def __init__(self, handle: BinaryIO, size: int) -> None:
        self.handle, self.left = handle, size

    def read(self, n: int = -1) -> bytes:
        n = self.left if n is None or n < 0 else min(n, self.left)
        data = self.handle.read(n) if n else b""
        self.left -= len(data)
        return data


def _unpacked_size(handle: BinaryIO, path: Path, name: str, method: int, packed: int, offset: int,
                   limit: int) -> int:  # fmt: skip
    """How many bytes a member unpacks to, counted a chunk at a time (none kept); stops once past ``limit``."""
    local = _read(handle, offset, 30)
    if len(local) < 30 or local[:4] != b"PK\x03\x04":
        raise SgrKitError(f"{path}: not a readable inspect_ai eval log (member {name}: no local header where the "
                          f"zip directory says, offset {offset:,})")  # fmt: skip
    name_len, extra_len = struct.unpack_from("<HH", local, 26)
    handle.seek(offset + 30 + name_len + extra_len)
    source, total = _Slice(handle, packed), 0
    try:
        if method == _DEFLATE:
            engine = zlib.decompressobj(-15)
            while total <= limit and not engine.eof:
                data = engine.unconsumed_tail or source.read(_CHUNK)
                if not data:
                    break
                total += len(engine.decompress(data, _CHUNK))  # at most one chunk out at a time
            return total
        try:
            import zstandard
        except ImportError:  # pragma: no cover - inspect_ai requires zstandard
            raise SgrKitError(f"{path}: member {name} is Zstandard-compressed; checking it needs the zstandard "
                              f"package (installed with inspect_ai)") from None  # fmt: skip
        reader = zstandard.ZstdDecompressor().stream_reader(source, read_across_frames=True)
        while total <= limit:
            data = reader.read(_CHUNK)
            if not data:
                break
            total += len(data)
        return total
    except SgrKitError:
        raise
    except Exception as exc:  # noqa: BLE001 - any codec error (zlib.error, ZstdError): the member is damaged
        raise SgrKitError(f"{path}: member {name} cannot be unpacked ({type(exc).__name__}: {str(exc)[:100]}); "
                          f"the archive is damaged") from None  # fmt: skip


def check_archive(path: str | os.PathLike, *, limit: int | None = None, one_of: tuple[str, ...] = ()) -> None:
    """Check every member of the zip archive ``path`` unpacks to at most ``limit`` bytes, before any is read.

    Each member is checked from its headers (the sizes the central directory gives, packed
    and unpacked), then, when it is compressed and could unpack past ``limit``, by unpacking
    it chunk by chunk and counting (nothing is kept), so a header that lies cannot let it
    through. The archive is walked as inspect_ai walks it (see the module docstring).

    Parameters
    ----------
    path : path
        The archive (an inspect_ai ``.eval`` log).
    limit : int, optional
        Bytes a member may unpack to; default :data:`MAX_MEMBER_BYTES`, the limit of one JSONL line.

    one_of : tuple of str, optional
        Member names of which the archive must hold at least one (an eval log: ``header.json``
        or ``_journal/start.json``); none by default.

    Raises
    ------
    SgrKitError
        Naming the file and the member: a member larger than ``limit`` (as its header says, or
        as it unpacks), a member that cannot be unpacked, a file that is not a zip archive, or an
        archive without any of ``one_of`` (said as "not a readable inspect_ai eval log").

    Examples
    --------
    >>> import pathlib, tempfile, zipfile
    >>> log = pathlib.Path(tempfile.mkdtemp()) / "run.eval"
    >>> with zipfile.ZipFile(log, "w", zipfile.ZIP_DEFLATED) as z:
    ...     z.writestr("header.json", "{}")
    ...     z.writestr("samples/1_epoch_1.json", "0" * 3_000_000)
    >>> log.stat().st_size < 10_000
    True
    >>> check_archive(log, limit=2**20)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: .../run.eval: member samples/1_epoch_1.json unpacks to 3,000,000 bytes (as its \
header says), more than 1,048,576, the limit of one item (as of one JSONL line); sgr-kit does not read it
    """
    limit = MAX_MEMBER_BYTES if limit is None else limit
    path = Path(path)
    names: list[str] = []
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            for name, method, packed, unpacked, offset in _members(handle, size, path):
                names.append(name)
                for what, n in (("unpacks to", unpacked), ("is packed in", packed)):
                    if n > limit:
                        raise SgrKitError(f"{path}: member {name} {what} {n:,} bytes (as its header says), more than "
                                          f"{limit:,}, the limit of one item (as of one JSONL line); sgr-kit does not "
                                          f"read it")  # fmt: skip
                if method == _STORED or (method == _DEFLATE and packed * 1032 <= limit):
                    continue  # cannot unpack past the limit (deflate expands at most 1032 times)
                if method not in (_DEFLATE, _ZSTD):
                    continue  # inspect_ai reads no other method: its error names it
                real = _unpacked_size(handle, path, name, method, packed, offset, limit)
                if real > limit:
                    raise SgrKitError(f"{path}: member {name} unpacks to more than {limit:,} bytes (its header says "
                                      f"{unpacked:,}), the limit of one item (as of one JSONL line); sgr-kit does not "
                                      f"read it")  # fmt: skip
    except OSError as exc:
        raise SgrKitError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if one_of and not set(one_of) & set(names):
        raise SgrKitError(f"{path}: not a readable inspect_ai eval log (a zip archive without "
                          f"{' or '.join(one_of)}: not an inspect_ai eval log)")  # fmt: skip
