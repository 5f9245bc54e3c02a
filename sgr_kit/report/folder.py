"""The report folder: what ``--force`` may replace, claiming it for a build, and moving the finished build into place.

- :func:`check_report_folder`: a report folder is new, empty, or (with ``force``) an sgr-kit
  report, which its ``provenance.json`` says and which holds no file the report did not
  write; a folder that is or contains an input is refused with or without ``force``;
- :class:`ReportClaim`: the folder claimed for the whole build by a lock file beside it
  (``.<name>.lock`` in its parent, through ``filelock``): a second build to the same folder
  stops at once, naming the first; what sits at the folder when it was checked is recorded
  (:class:`FolderState`: absent, or which folder by device and inode, and its provenance);
- :func:`install_report`: the complete build folder moves into place only when what sits at
  the folder is still what was checked: onto a missing path with a rename that never
  replaces (``renameat2(RENAME_NOREPLACE)`` on Linux), and over an old report by moving the
  old one aside, checking it is the one recorded, then renaming; otherwise nothing is
  deleted, the finished report is kept beside the folder and :class:`ReportFolderChanged`
  names it. The report gets the permissions of the user's umask (``mkdtemp`` made it 0700);
- :func:`copy_report` and :func:`remove_folder`: a subset rebuild starts from the previous
  report; a failed or interrupted build removes its folder; :func:`clean_leftovers`: what a
  build killed outright (SIGKILL) left beside the folder is removed by the next build that
  claims it (the build folder) or named with the command to restore it (a moved-aside report).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import hashlib
import json
import os
import re
import shutil
import socket
import stat
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..errors import SgrKitError

__all__ = ["REPORT_KIND", "FolderState", "ReportClaim", "ReportFolderChanged", "check_report_folder", "clean_leftovers",
           "copy_report",
           "folder_state", "install_report", "is_report", "read_provenance", "remove_folder", "rename_no_replace",
           "report_files"]


def read_provenance(out: Path) -> dict | None:
    """The ``provenance.json`` of folder ``out`` as a dict, or None when absent or unreadable."""
    try:
        provenance = json.loads((out / "provenance.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return provenance if isinstance(provenance, dict) else None


#: What a report's ``provenance.json`` says it is (``--force`` replaces only such a folder).
REPORT_KIND = "sgr-kit report"
#: Entries of a report folder that are no part of the report and may be replaced with it.
_IGNORED = {".ipynb_checkpoints", ".DS_Store"}


def is_report(provenance: dict | None) -> bool:
    """Whether a provenance says its folder is an sgr-kit report (also one written before the
    ``report`` key existed).
    """
    if not provenance:
        return False
    if provenance.get("report") == REPORT_KIND:
        return True
    return all(key in provenance for key in ("sgr_kit", "scoring", "notebooks", "inputs"))  # before "report"


def report_files(folder: Path) -> list[str]:
    """The files of a report folder, as sorted relative POSIX paths (editor and system clutter left out)."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                  if p.is_file() and not (set(p.relative_to(folder).parts) & _IGNORED))


def _shown(names: Sequence[str], limit: int = 5) -> str:
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


def check_report_folder(out_dir: str | os.PathLike, *, force: bool = False,
                        inputs: Sequence[str | os.PathLike] = ()) -> Path:
    """Refuse a report folder that would destroy something that is not a report.

    ``out_dir`` may not exist, be an empty folder, or (with ``force``) hold an sgr-kit report:
    its ``provenance.json`` says so and the folder holds no file the report did not write.
    A folder that equals or contains an input (a task, runs, audit, rules or pairing file or
    folder, a notebook) is refused with or without ``force``.

    A folder given through a symbolic link (``--out link``, the link itself or one of its parent
    folders) is the folder the link leads to: the report is written there, through the link,
    which stays as it is (never replaced by a folder).

    Returns
    -------
    Path
        The folder, absolute, every symbolic link on the way resolved.

    Raises
    ------
    SgrKitError
        Naming the folder and what is in it.
    """
    resolved = Path(os.path.realpath(Path(out_dir).absolute()))
    out = resolved
    for source in inputs:
        path = Path(source)
        if not path.exists():
            continue  # a dataset id, or a file the loaders will report
        real = Path(os.path.realpath(path))
        if real == resolved or resolved in real.parents:
            raise SgrKitError(f"report folder {out_dir} {'is' if real == resolved else 'contains'} the input "
                              f"{source}; choose a report folder that holds no input (with or without --force)")
    if out.exists() and not out.is_dir():
        raise SgrKitError(f"report folder {out_dir} is an existing file; expected a folder")
    if not out.exists():
        return out
    try:
        entries = sorted(p.name for p in out.iterdir())
    except OSError as exc:
        raise SgrKitError(f"report folder {out_dir}: cannot read it ({exc.strerror})") from None
    if not entries:
        return out
    if not force:
        raise SgrKitError(f"report folder {out_dir} is not empty; pass --force to replace the report in it")
    provenance = read_provenance(out)
    if not is_report(provenance):
        raise SgrKitError(f"report folder {out_dir} holds {_shown(entries)} but no sgr-kit report (no provenance.json "
                          f"saying so); --force replaces only a report. Choose another --out")
    listed = provenance.get("files")
    if isinstance(listed, list):
        foreign = sorted(set(report_files(out)) - set(map(str, listed)) - {"provenance.json"})
        if foreign:
            raise SgrKitError(f"report folder {out_dir} holds files that are not part of its report: {_shown(foreign)}; "
                              f"--force replaces only a report. Move them, or choose another --out")
    return out


class ReportFolderChanged(SgrKitError):
    """What sits at the report folder changed during the build: nothing was replaced, the new report is at ``kept``."""

    def __init__(self, message: str, kept: Path) -> None:
        super().__init__(message)
        self.kept = kept


@dataclass(frozen=True)
class FolderState:
    """What sits at a report folder: nothing, or which folder (device and inode) holding which ``provenance.json``."""

    exists: bool
    inode: tuple[int, int] | None = None
    provenance: str | None = None  # SHA-256 of its provenance.json, None when it has none
    folder: bool = True  # False: a file or a link sits there

    def describe(self) -> str:
        if not self.exists:
            return "nothing"
        if not self.folder:
            return f"a file or link (inode {self.inode[1]})"
        return f"a folder (inode {self.inode[1]}) {'with a' if self.provenance else 'without'} provenance.json"


def folder_state(out: Path) -> FolderState:
    """What sits at ``out`` now (a symbolic link is taken as itself, not what it points to)."""
    try:
        st = os.lstat(out)
    except FileNotFoundError:
        return FolderState(False)
    try:
        digest = hashlib.sha256((out / "provenance.json").read_bytes()).hexdigest()
    except OSError:
        digest = None
    return FolderState(True, (st.st_dev, st.st_ino), digest, stat.S_ISDIR(st.st_mode))


class ReportClaim:
    """A report folder claimed for one build: a lock on ``.<name>.lock`` beside it, held until :meth:`release`.

    The claim is keyed on the real folder (every symbolic link on the way resolved): ``--out real``
    and ``--out link`` (a link to ``real``) are one folder and one claim, so the second build stops.

    The lock is ``filelock``'s (an OS lock on the file, freed by the system when the process
    ends however it ends); the file holds who took it (process id, host, start time, command),
    which a second build to the same folder names when it stops. The file is removed while
    the lock is still held, so it is gone after the build (filelock notices a lock file removed
    under a waiting peer and takes a new one).
    """

    def __init__(self, out: Path, *, command: str = "") -> None:
        from filelock import FileLock, Timeout

        out = Path(os.path.realpath(Path(out).absolute()))  # one claim per real folder, whatever name leads to it
        self.out = out
        self.path = out.parent / f".{out.name}.lock"
        self._lock = FileLock(str(self.path), timeout=0, thread_local=False)
        try:
            self._lock.acquire()
        except Timeout:
            raise SgrKitError(f"report folder {out}: another build is writing it ({self._holder()}); wait until it "
                              f"ends, or choose another --out") from None
        except OSError as exc:
            raise SgrKitError(f"report folder {out}: cannot claim it ({self.path}: {exc.strerror or exc})") from None
        self.info = {"pid": os.getpid(), "host": socket.gethostname(),
                     "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "command": command}
        try:
            self.path.write_text(json.dumps(self.info) + "\n", encoding="utf-8")
        except OSError:
            pass
        self.state: FolderState | None = None

    def _holder(self) -> str:
        try:
            info = json.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(info, dict):
                raise ValueError
        except (OSError, ValueError, RecursionError):
            return f"its lock is {self.path}"
        command = f", {info['command']!r}" if info.get("command") else ""
        return (f"process {info.get('pid')} on {info.get('host')}, started {info.get('started')}{command}; "
                f"its lock is {self.path}")

    def check(self, state: FolderState | None = None) -> FolderState:
        """Record what sits at the folder now (call after the folder was checked, with the claim held)."""
        self.state = folder_state(self.out) if state is None else state
        return self.state

    def release(self) -> None:
        """Remove the lock file and free the lock (a second call does nothing)."""
        if self._lock.is_locked:
            try:
                self.path.unlink()
            except OSError:
                pass
            self._lock.release(force=True)

    def __enter__(self) -> "ReportClaim":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


_MKDTEMP = re.compile(r"[a-z0-9_]{8}")


def clean_leftovers(claim: "ReportClaim") -> tuple[list[Path], list[Path]]:
    """Remove the build folders a killed build left beside the claimed folder; list what only a person may remove.

    Call with the claim held. A build makes its folder (``.<name>.building-xxxxxxxx``) only
    while it holds the claim on ``<name>``, and this process holds it now, so whoever made such
    a folder is gone (killed with SIGKILL, or its machine crashed): it is removed. A folder
    ``.<name>.previous-xxxxxxxx`` holds the report a build moved aside while installing the new
    one; it is never removed here, only returned, for a message saying how to put it back.

    Returns
    -------
    removed : list of Path
        The build folders removed.
    kept : list of Path
        The ``previous`` folders left as they are.
    """
    out = claim.out
    removed, kept = [], []
    try:
        names = sorted(os.listdir(out.parent))
    except OSError:
        return removed, kept
    for name in names:
        path = out.parent / name
        for kind in ("building", "previous"):
            prefix = f".{out.name}.{kind}-"
            if not (name.startswith(prefix) and _MKDTEMP.fullmatch(name[len(prefix):])):
                continue
            if not stat.S_ISDIR(os.lstat(path).st_mode):  # sgr-kit makes folders; a link or file is someone else's
                continue
            if kind == "previous":
                kept.append(path)
            else:
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
    return removed, kept


def _umask_dir_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o777 & ~mask


_RENAME_NOREPLACE = 1  # linux/fs.h
_AT_FDCWD = -100


def _renameat2():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        function = libc.renameat2  # glibc 2.28 and later
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


def rename_no_replace(source: Path, target: Path) -> None:
    """Rename ``source`` to ``target`` only when nothing sits at ``target``; raises ``FileExistsError`` otherwise.

    On Linux this is one system call (``renameat2`` with ``RENAME_NOREPLACE``), so nothing can
    appear at ``target`` between the check and the rename; where the system or file system
    lacks it, the check comes just before a plain rename (which fails onto a non-empty folder).
    """
    function = _renameat2()
    if function is not None:
        if function(_AT_FDCWD, os.fsencode(source), _AT_FDCWD, os.fsencode(target), _RENAME_NOREPLACE) == 0:
            return
        code = ctypes.get_errno()
        if code not in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
            raise OSError(code, os.strerror(code), str(target))
    if os.path.lexists(target):
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(target))
    os.rename(source, target)


def _keep_beside(building: Path, out: Path) -> Path:
    """Rename the finished build to a visible name beside ``out`` that nothing holds yet."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for n in range(100):
        kept = out.parent / f"{out.name}.new-{stamp}{'' if n == 0 else f'-{n}'}"
        try:
            rename_no_replace(building, kept)
            return kept
        except FileExistsError:
            continue
    return building


def _changed(out: Path, building: Path, expected: FolderState, found: FolderState) -> ReportFolderChanged:
    kept = _keep_beside(building, out)
    if found.exists and found.inode == expected.inode:
        what = "its provenance.json changed"
    else:
        what = f"it held {expected.describe()} when the build started and now holds {found.describe()}"
    return ReportFolderChanged(f"report folder {out} changed during the build ({what}); nothing in it was replaced or "
                               f"deleted. The new report is in {kept}", kept)


def install_report(building: Path, out: Path, expected: FolderState | None = None) -> None:
    """Move the complete report into place, replacing the previous one only when it is still the one ``expected``.

    ``expected`` is what sat at ``out`` when the build checked it (:meth:`ReportClaim.check`;
    None: whatever sits there now). When something else sits there now, or appears while
    the report moves, nothing is replaced or deleted: the new report is kept beside ``out``
    and :class:`ReportFolderChanged` names it.
    """
    os.chmod(building, _umask_dir_mode())  # mkdtemp made it 0700: a report folder follows the umask
    found = folder_state(out)
    if expected is None:
        expected = found
    if found != expected:
        raise _changed(out, building, expected, found)
    if not found.exists:
        try:
            rename_no_replace(building, out)
        except FileExistsError:
            raise _changed(out, building, expected, folder_state(out)) from None
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.previous-", dir=out.parent))
    aside = old / out.name
    os.rename(out, aside)  # whatever sits at out now: checked below, and put back when it is not the old report
    moved = folder_state(aside)
    if moved != expected:
        try:
            rename_no_replace(aside, out)
            old.rmdir()
        except OSError:  # yet another thing appeared at out: leave each where it is, and say where
            error = _changed(out, building, expected, moved)
            raise ReportFolderChanged(f"{error}; what sat at {out} is in {aside}", error.kept) from None
        raise _changed(out, building, expected, moved)
    try:
        rename_no_replace(building, out)
    except FileExistsError:  # something appeared at out after the old report moved aside: keep all three
        error = _changed(out, building, expected, folder_state(out))
        raise ReportFolderChanged(f"{error}; the previous report is in {aside}", error.kept) from None
    shutil.rmtree(old, ignore_errors=True)


def copy_report(out: Path, building: Path) -> None:
    """Copy the previous report into the build folder (a subset rebuild keeps its other pages)."""
    for name in report_files(out):
        target = building / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(out / name, target)


def remove_folder(folder: Path) -> None:
    """Remove a build folder, even while signals arrive."""
    for _ in range(3):
        try:
            shutil.rmtree(folder, ignore_errors=True)
            return
        except BaseException:  # a second Ctrl-C during the removal: try again, then give up quietly
            continue
