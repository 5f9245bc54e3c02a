"""Run the tests marked ``concurrent`` many times in a row beside CPU-burning processes.

The tests that send signals, hold locks, or run threads and processes side by side
(``pytest -m concurrent``) must not depend on how fast the machine is: each waits for a state
the program reaches (a file, a line, a pause point of :mod:`sgr_kit.testing`), never for a
delay. This script proves it: it starts ``--burners`` processes that only burn processor time
(``while True: pass``), runs the marked tests ``--rounds`` times in a row (a new random order
each round, in parallel as ``make test`` runs them), stops at the first failing round, prints
each round's time and stops the burners.

Usage (``make stress`` runs the first)::

    .venv/bin/python benchmarks/stress_concurrent.py                      # 20 rounds, 2 burners
    .venv/bin/python benchmarks/stress_concurrent.py --rounds 5 --burners 0
    .venv/bin/python benchmarks/stress_concurrent.py -- -n 0              # pytest options after --
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PARALLEL = ["-n", "2", "--dist", "worksteal"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20, help="runs of the marked tests (default 20)")
    parser.add_argument("--burners", type=int, default=2, help="CPU-burning processes beside them (default 2)")
    parser.add_argument("pytest_args", nargs="*", help="more pytest options (after --); default: " + " ".join(PARALLEL))
    args = parser.parse_args(argv)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "concurrent",
               *(args.pytest_args or PARALLEL)]
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(143))  # the burners are stopped below all the same
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.burners)]
    passed = 0
    try:
        print(f"cores: {os.cpu_count()}; burners: {len(burners)}; running {args.rounds} times:",
              " ".join(command[1:]), flush=True)
        for round_ in range(1, args.rounds + 1):
            seed = random.randrange(2**32)
            start = time.perf_counter()
            done = subprocess.run([*command, f"--randomly-seed={seed}"], cwd=ROOT, capture_output=True, text=True)
            lines = done.stdout.strip().splitlines()
            load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
            print(f"round {round_:2d}: {'passed' if done.returncode == 0 else 'FAILED'} in "
                  f"{time.perf_counter() - start:5.1f} s (load {load}, --randomly-seed={seed}) {lines[-1] if lines else ''}",
                  flush=True)
            if done.returncode != 0:
                print(done.stdout[-8000:], done.stderr[-3000:], sep="\n")
                break
            passed += 1
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    print(f"{passed} of {args.rounds} rounds passed in a row beside {len(burners)} CPU-burning processes")
    return 0 if passed == args.rounds else 1


if __name__ == "__main__":
    sys.exit(main())
