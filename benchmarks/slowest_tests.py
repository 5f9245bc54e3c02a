"""Run the test suite and print its wall time and the 20 slowest tests.

Usage (``make slowest`` runs the first)::

    .venv/bin/python benchmarks/slowest_tests.py                      # as `make test`: -n 2, every test
    .venv/bin/python benchmarks/slowest_tests.py -m "not slow and not browser"   # as `make test-fast`
    .venv/bin/python benchmarks/slowest_tests.py --top 40 -- -n 3     # other pytest options after --

Each test's time is what pytest's JUnit XML report gives it: setup, call and teardown
together, so a test that builds a module's shared fixture carries that build. Under
pytest-xdist the times of the workers add up to more than the wall time. The machine's load
(``/proc/loadavg``) is printed before and after: on a shared machine the times are only
comparable between runs of similar load. The times are printed, never checked: timing
assertions do not belong in the tests.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The parallel options of `make test` (the Makefile's PYTEST_PARALLEL).
PARALLEL = ["-n", "2", "--dist", "worksteal"]


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-m", dest="marker", default=None, help="pytest -m expression (default: every test)")
    parser.add_argument("--top", type=int, default=20, help="how many tests to list (default 20)")
    parser.add_argument("pytest_args", nargs="*", help="more pytest options (after --); default: " + " ".join(PARALLEL))
    args = parser.parse_args(argv)
    extra = args.pytest_args or PARALLEL
    with tempfile.TemporaryDirectory(prefix="sgr-kit-slowest-") as folder:
        report = Path(folder) / "junit.xml"
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}", *extra]
        if args.marker:
            command += ["-m", args.marker]
        print(f"cores: {os.cpu_count()}; load before: {_load()}")
        print("running:", " ".join(command[1:]), flush=True)
        start = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        wall = time.perf_counter() - start
        lines = done.stdout.strip().splitlines()
        for line in lines:
            if line.startswith(("FAILED", "ERROR")):
                print(line[:400])
        print(lines[-1] if lines else done.stderr[-2000:])
        if not report.is_file():
            print(done.stderr[-3000:], file=sys.stderr)
            return done.returncode or 1
        cases = [(float(case.get("time", 0)), f"{case.get('classname', '').replace('.', '/')}.py::{case.get('name')}")
                 for case in ET.parse(report).getroot().iter("testcase")]
    cases.sort(reverse=True)
    print(f"load after: {_load()}")
    print(f"wall time {wall:.0f} s; {len(cases)} tests, {sum(t for t, _ in cases):.0f} s of test time in all")
    print(f"the {args.top} slowest (setup + call + teardown):")
    for seconds, name in cases[: args.top]:
        print(f"{seconds:8.1f} s  {name}")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
