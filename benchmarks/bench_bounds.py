"""Memory of small files that expand ("bombs"), before and after the bounds, and the label store under many writers.

Each measurement runs in a subprocess of its own whose address space is capped (``--cap``, default
2 GiB, so that a "before" case cannot take the machine down: it ends in ``MemoryError`` at the cap
instead) and reports the subprocess's peak resident memory above what its imports took:

1. ``yaml: value shown``: a 342-byte YAML file of nine levels of nine aliases ("billion laughs"),
   loaded as ``yaml.safe_load`` loads it and shown in an error message as the readers did
   (``f"{value!r:.60}"``, which builds the whole text before cutting it): the "before";
2. ``yaml: read_tool_kinds``: the same file read by sgr-kit's reader of tool kinds
   (:func:`sgr_kit.errors.decode_yaml` refuses the first anchor): the "after";
3. ``eval: inspect_ai``: a real inspect_ai ``.eval`` log (written by inspect_ai's ``eval``) whose one
   sample is padded to unpack to ``--bomb-mib`` MiB (about 0.6 MB packed), read by inspect_ai's own
   reader: the "before";
4. ``eval: read_inspect_log``: the same log read by sgr-kit (:func:`check_archive` refuses the
   member from its header before inspect_ai reads it), and the same log with a header that says
   100 bytes (refused as the member unpacks, counted and thrown away a MiB at a time): the "after";
5. ``labels``: ``--writers`` processes writing 3 labels each into one label file at once (one start
   event), with the wall time and how many labels the file keeps.

Run: ``.venv/bin/python benchmarks/bench_bounds.py`` (about a minute).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

LAUGHS = "".join(f"{k}: &{k} [{', '.join([f'*{p}'] * 9 if p else ['lol'] * 9)}]\n"
                 for p, k in zip(["", *"abcdefgh"], "abcdefghi"))  # fmt: skip

_RUN = """
import resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
import yaml, sgr_kit.errors, sgr_kit.trajectories, sgr_kit.trajectories.inspect_log, inspect_ai.log
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
try:
{body}
    outcome = "read"
except MemoryError:
    outcome = "MemoryError at the cap"
except sgr_kit.errors.SgrKitError as exc:
    outcome = "SgrKitError: " + str(exc).split(": ", 1)[1][:70]
except Exception as exc:
    outcome = type(exc).__name__ + ": " + str(exc)[:70]
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(round(time.perf_counter() - start, 2), round((peak - base) / 1024), outcome, sep="\\t", file=sys.stderr)
"""

CASES = {
    "yaml: value shown (before)": "    f'{yaml.safe_load(open(sys.argv[1]).read())!r:.60}'",
    "yaml: read_tool_kinds (after)": "    sgr_kit.trajectories.read_tool_kinds(sys.argv[1])",
    "eval: inspect_ai reads it (before)": "    list(inspect_ai.log.read_eval_log_samples(sys.argv[2]))",
    "eval: read_inspect_log (after)": "    list(sgr_kit.trajectories.inspect_log.read_inspect_log(sys.argv[2]))",
    "eval, header lying: read_inspect_log (after)": "    list(sgr_kit.trajectories.inspect_log.read_inspect_log(sys.argv[3]))",
}


def _real_log(folder: Path) -> Path:
    """A real inspect_ai log of one sample (inspect_ai's ``eval`` with a solver that answers, no model call)."""
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

    [run] = inspect_eval(Task(dataset=[Sample(id="t_001", input="x")], solver=answer(), name="bench"),
                         model="mockllm/model", log_dir=str(folder / "logs"), display="none")  # fmt: skip
    return Path(run.location)


def _bomb(real: Path, path: Path, mib: int, *, lie: bool) -> None:
    """``real`` with its sample padded by ``mib`` MiB of one letter (deflated: about 1 KiB per MiB)."""
    import inspect_ai._util.zipfile  # noqa: F401 - lets zipfile read inspect_ai's Zstandard members

    name = "samples/t_001_epoch_1.json"
    with zipfile.ZipFile(real) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for info in source.infolist():
            if info.filename != name:
                z.writestr(info.filename, source.read(info.filename))
        sample = source.read(name)
        with z.open(name, "w", force_zip64=True) as member:
            member.write(sample[:-1] + b', "metadata": {"pad": "')
            for _ in range(mib):
                member.write(b"a" * 2**20)
            member.write(b'"}}')
    if lie:  # the central directory says 100 bytes (its ZIP64 field too): only unpacking tells
        data = bytearray(path.read_bytes())
        at = data.find(b"PK\x01\x02")
        while at != -1:
            if data[at + 46:at + 46 + len(name)] == name.encode():
                data[at + 24:at + 28] = (100).to_bytes(4, "little")
                extra = at + 46 + len(name)
                if data[extra:extra + 2] == b"\x01\x00":
                    data[extra + 4:extra + 12] = (100).to_bytes(8, "little")
            at = data.find(b"PK\x01\x02", at + 4)
        path.write_bytes(bytes(data))


def _labels(writers: int) -> tuple[float, int]:
    import multiprocessing

    from sgr_kit.annotate.store import LabelStore
    from sgr_kit.load.labels import load_labels

    def write(path: str, who: str, start) -> None:
        start.wait()
        store = LabelStore(path, "ann")
        for i in range(3):
            store.set(who, f"t{i}", 0, "correct")

    context = multiprocessing.get_context("fork")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "ann.csv"
        LabelStore(path, "ann")
        start = context.Event()
        procs = [context.Process(target=write, args=(str(path), f"w{k}", start)) for k in range(writers)]
        for proc in procs:
            proc.start()
        began = time.perf_counter()
        start.set()
        for proc in procs:
            proc.join()
        return time.perf_counter() - began, len(load_labels(path))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cap", type=int, default=2048, help="MiB of address space per measurement (default 2048)")
    parser.add_argument("--bomb-mib", type=int, default=600, help="MiB the .eval's sample unpacks to (default 600)")
    parser.add_argument("--writers", type=int, default=200, help="label writers at once (default 200)")
    args = parser.parse_args()
    print(f"Python {platform.python_version()} on {platform.machine()}, cap {args.cap} MiB per measurement")
    with tempfile.TemporaryDirectory() as folder:
        laughs, bomb, lying = Path(folder) / "kinds.yaml", Path(folder) / "bomb.eval", Path(folder) / "lying.eval"
        laughs.write_text(LAUGHS, encoding="utf-8")
        real = _real_log(Path(folder))
        _bomb(real, bomb, args.bomb_mib, lie=False)
        _bomb(real, lying, args.bomb_mib, lie=True)
        print(f"files: {laughs.stat().st_size} bytes of YAML; .eval {bomb.stat().st_size:,} bytes "
              f"(unpacks to {args.bomb_mib} MiB)\n")
        print("| case | seconds | peak memory above imports (MiB) | outcome |\n|---|---|---|---|")
        for name, body in CASES.items():
            code = _RUN.format(cap=args.cap * 2**20, body=body)
            done = subprocess.run([sys.executable, "-c", code, str(laughs), str(bomb), str(lying)],
                                  capture_output=True, text=True, timeout=600)  # fmt: skip
            fields = (done.stderr.strip().splitlines() or [""])[-1].split("\t")  # inspect_ai may take stdout
            if len(fields) != 3:  # died without a word (killed at the cap, a crash): its last line of error
                fields = ["-", "-", f"exit {done.returncode}: " + (done.stderr.strip().splitlines() or [""])[-1][:70]]
            seconds, mib, outcome = fields
            print(f"| {name} | {seconds} | {mib} | {outcome} |")
    seconds, kept = _labels(args.writers)
    print(f"\nlabels: {args.writers} processes x 3 labels in {seconds:.1f} s; the file keeps {kept} of "
          f"{args.writers * 3}")


if __name__ == "__main__":
    main()
