"""What a report records about how it was built: its inputs' hashes, the scoring key, the libraries' versions.

- :func:`input_records`: every input file with its SHA-256 (a folder: each file in it; a
  dataset id: named, not hashed);
- :func:`scoring_key`: what decides whether a rebuild may reuse the previous report's
  scores (inputs, profile, strict pairing, language, package version);
- :func:`previous_scores`: the previous report's scores and cells when their key matches;
- :func:`versions`: the versions of :data:`LIBRARIES`.
"""

from __future__ import annotations

import hashlib
import json
import os
from importlib import metadata
from pathlib import Path
from typing import Sequence

from .. import __version__
from .folder import read_provenance

__all__ = ["LIBRARIES", "input_records", "previous_scores", "scoring_key", "sha256", "versions"]

#: Libraries whose versions the provenance records.
LIBRARIES = ("pandas", "numpy", "scipy", "matplotlib", "seaborn", "pyarrow", "papermill", "nbconvert",
             "nbformat", "nbclient", "ipykernel", "pyyaml")


def sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, as hex (read in blocks of 1 MiB)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def input_records(role: str, sources: Sequence[str | os.PathLike] | None) -> list[dict[str, str]]:
    """One record ``{role, path, sha256}`` per input file (every file of a folder; a dataset id named, not hashed)."""
    records = []
    for source in sources or ():
        path = Path(source)
        if path.is_file():
            records.append({"role": role, "path": str(source), "sha256": sha256(path)})
        elif path.is_dir():
            for file in sorted(p for p in path.rglob("*") if p.is_file()):
                records.append({"role": role, "path": str(file), "sha256": sha256(file)})
        else:  # a dataset id: named, not hashed
            records.append({"role": role, "path": str(source), "sha256": ""})
    return records


def scoring_key(inputs: list[dict[str, str]], profile: str, strict_pairing: bool, language: str = "en") -> str:
    """The SHA-256 of what scoring depends on: the tasks, runs, rules and pairing inputs (file name and hash),
    the profile, strict pairing, the package version and a language other than English."""
    scoring = [(r["role"], Path(r["path"]).name, r["sha256"] or r["path"]) for r in inputs
               if r["role"] in ("tasks", "runs", "rules", "pairing")]
    text = json.dumps({"inputs": scoring, "profile": profile, "strict_pairing": strict_pairing,
                       "sgr_kit": __version__, **({} if language == "en" else {"language": language})}, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def previous_scores(out: Path, key: str) -> tuple[Path, Path] | None:
    """The previous report's scores and cells when they were scored from the same inputs."""
    provenance = read_provenance(out) or {}
    scores, cells = out / "scores.csv", out / "cells.parquet"
    scoring = provenance.get("scoring")
    if isinstance(scoring, dict) and scoring.get("key") == key and scores.is_file() and cells.is_file():
        return scores, cells
    return None


def versions() -> dict[str, str]:
    """The installed version of every library of :data:`LIBRARIES` (``"not installed"`` when absent)."""
    found = {}
    for name in LIBRARIES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found
