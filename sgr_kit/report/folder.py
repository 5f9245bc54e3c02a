"""The report folder: what ``--force`` may replace, and moving a finished build into place.

- :func:`check_report_folder`: a report folder is new, empty, or (with ``force``) an sgr-kit
  report, which its ``provenance.json`` says and which holds no file the report did not
  write; a folder that is or contains an input is refused with or without ``force``;
- :func:`install_report`: the complete build folder replaces the previous report in one
  rename, with the permissions of the user's umask (``mkdtemp`` made it 0700);
- :func:`copy_report` and :func:`remove_folder`: a subset rebuild starts from the previous
  report; a failed or interrupted build removes its folder.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Sequence

from ..errors import SgrKitError

__all__ = ["REPORT_KIND", "check_report_folder", "copy_report", "install_report", "is_report", "read_provenance",
           "remove_folder", "report_files"]


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

    Returns
    -------
    Path
        The folder, absolute.

    Raises
    ------
    SgrKitError
        Naming the folder and what is in it.
    """
    out = Path(out_dir).absolute()
    resolved = Path(os.path.realpath(out))
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


def _umask_dir_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o777 & ~mask


def install_report(building: Path, out: Path) -> None:
    """Move the complete report into place, replacing the previous one."""
    os.chmod(building, _umask_dir_mode())  # mkdtemp made it 0700: a report folder follows the umask
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.previous-", dir=out.parent))
        os.rename(out, old / out.name)
        os.rename(building, out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.rename(building, out)


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
