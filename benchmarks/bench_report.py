"""How long the demo report takes, against papermill running as many trivial notebooks one by one.

The target: on the 2-core machine the full demo report build (scoring, the report's notebooks
run two at a time, HTML export, index, provenance) takes at most 1.0x the time
papermill's command line needs to run the same number of trivial notebooks one after
another (each trivial notebook only pays papermill's start-up, a kernel start and shutdown).

Run on demand (``make benchmark`` or ``.venv/bin/python benchmarks/bench_report.py``); the
result and the method are in ``benchmarks/README.md``. Timing assertions do not belong in
the unit tests: shared machines are noisy.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

BIN = Path(sys.executable).parent


def trivial_notebooks(folder: Path, n: int) -> list[Path]:
    paths = []
    for i in range(n):
        nb = nbformat.v4.new_notebook()
        params = nbformat.v4.new_code_cell("x = 1")
        params.metadata["tags"] = ["parameters"]
        nb.cells = [params, nbformat.v4.new_code_cell("x + 1")]
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        path = folder / f"trivial_{i}.ipynb"
        nbformat.write(nb, path)
        paths.append(path)
    return paths


def sequential_papermill(paths: list[Path], folder: Path) -> float:
    start = time.perf_counter()
    for path in paths:
        subprocess.run([str(BIN / "papermill"), str(path), str(folder / f"out_{path.name}"), "-k", "python3",
                        "--no-progress-bar"], check=True, capture_output=True)
    return time.perf_counter() - start


def demo_report(folder: Path, workers: int | None, name: str = "demo") -> float:
    """Seconds for ``sgr-kit report`` into ``folder/name``: a rebuild (scores reused) when it holds a report."""
    start = time.perf_counter()
    command = [str(BIN / "sgr-kit"), "report", "--out", str(folder / name), "--force", "--no-progress"]
    if workers:
        command += ["--workers", str(workers)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"sgr-kit report failed (exit status {done.returncode}):\n"
                 + "\n".join(done.stdout.splitlines()[-20:] + done.stderr.splitlines()[-20:]))
    return time.perf_counter() - start


def where_time_goes(report: Path, *, top: int = 3) -> list[str]:
    """Lines saying where a built report's time went: scoring, each notebook, and its slowest cells.

    Read from ``provenance.json`` (scoring and notebook wall times) and from papermill's
    per-cell ``duration`` in each executed notebook; a cell is named by its first line.
    """
    import json

    provenance = json.loads((report / "provenance.json").read_text(encoding="utf-8"))
    lines = [f"  scoring: {provenance['scoring']['seconds']:.1f} s (reused: {provenance['scoring']['reused']})"]
    for run in provenance["notebooks"]:
        executed = nbformat.read(report / f"{run['name']}.ipynb", as_version=4)
        cells = [(c.metadata.get("papermill", {}).get("duration") or 0.0, c.source.strip().splitlines()[0][:60])
                 for c in executed.cells if c.cell_type == "code" and c.source.strip()]
        in_cells = sum(d for d, _ in cells)
        lines.append(f"  {run['name']:<26} {run['seconds']:5.1f} s, of which {in_cells:4.1f} s in its cells "
                     f"(the rest: papermill, waiting for its kernel, HTML export)")
        for duration, first in sorted(cells, reverse=True)[:top]:
            lines.append(f"      {duration:5.1f} s  {first}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2, help="runs of each measurement; the best is kept")
    parser.add_argument("--workers", type=int, default=None,
                        help="notebooks the report runs at once (default: the machine's cores)")
    args = parser.parse_args(argv)
    from sgr_kit.report.build import NOTEBOOKS

    n = len(NOTEBOOKS)
    print(f"{platform.machine()} {platform.python_version()}, {os.cpu_count()} cores; {n} notebooks")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = trivial_notebooks(folder, n)
        sequential_papermill(paths[:1], folder)  # warm caches (matplotlib fonts, bytecode)
        demo_report(folder, args.workers)
        times: dict[str, list[float]] = {"baseline": [], "rebuild": [], "first": []}
        for i in range(args.repeats):  # interleaved, so that a change in the machine's load hits all three alike
            times["baseline"].append(sequential_papermill(paths, folder))
            times["rebuild"].append(demo_report(folder, args.workers))
            times["first"].append(demo_report(folder, args.workers, name=f"first-{i}"))
        breakdown = where_time_goes(folder / "demo")
    baseline, rebuild, first = (min(times[k]) for k in ("baseline", "rebuild", "first"))
    print(f"papermill, {n} trivial notebooks one after another:     {baseline:6.1f} s")
    print(f"sgr-kit report on the demo, first build (scores it):    {first:6.1f} s  ratio {first / baseline:.2f}")
    print(f"sgr-kit report on the demo, rebuild (scores reused):    {rebuild:6.1f} s  ratio {rebuild / baseline:.2f}")
    print("target: a ratio of at most 1.0")
    print("where the last build's time went:")
    print("\n".join(breakdown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
