"""Statistical validity of sgr_kit.stats by simulation: coverage, type-I error and power.

Data come from :mod:`sgr_kit.stats.simulate`: 50 base problems, two correlated variants
sharing the problem's difficulty, several systems sharing it too, bounded zero-inflated
scores with ties at 0 and 1, parse failures (0 under the default failure policy) and,
in one design, 2 repeats per task. The true means are known exactly (finite sums of normal
probabilities, :func:`sgr_kit.stats.simulate.true_means`).

Parts (run one or more with ``--part``):

``coverage``
    share of replications whose 95 % interval holds the true value: every
    ``bootstrap_means`` cell (per system and pooled ``all systems``; ``bca`` and
    ``percentile``), the ``diff`` interval of ``paired_tests`` (per system and pooled)
    and of ``system_matrix`` (every pair, ``overall`` Item-F1). With ``--plain``: the
    same intervals without the small-sample expansion of the level, for comparison.
``type1``
    rejection rate at alpha 0.05 of ``p_t``, ``p_wilcoxon`` and ``p_signflip`` of
    ``paired_tests`` when constraint and goal are exchangeable within a pair (latent
    shift 0), with 50 and with 15 base problems; and of ``system_matrix``'s ``p`` for
    two pairs of systems of equal ability.
``power``
    rejection rate of the same tests for latent shifts of 0.2, 0.4 and 0.6 (the true
    constraint-minus-goal difference in points is printed beside it).

Every replication is seeded (``--seed`` + replication number), so a run is
reproducible; replications are spread over ``--workers`` processes. Monte Carlo
standard errors are binomial, ``sqrt(p (1 - p) / n)`` with ``n`` the replications
per cell.

    .venv/bin/python benchmarks/statistical_validity.py --part all --reps 2000
    .venv/bin/python benchmarks/statistical_validity.py --part type1 --reps 500
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one thread per worker: small matrices, shared machine

import argparse
import json
import multiprocessing
import platform
import sys
import time
from collections import defaultdict

import numpy as np
import pandas as pd

from sgr_kit.schema import METRICS
from sgr_kit.stats import bootstrap_means, paired_tests, system_matrix
from sgr_kit.stats import _resample
from sgr_kit.stats.simulate import SimulationDesign, simulate_scores, true_means

ABILITIES = (0.8, 0.3, -0.2, -0.9)
DESIGNS = {
    "coverage": SimulationDesign(abilities=ABILITIES, shift=0.3),
    "coverage, 2 repeats": SimulationDesign(abilities=ABILITIES, shift=0.3, n_repeats=2),
    "null, 50 problems": SimulationDesign(abilities=(0.5, 0.5, -0.5, -0.5), shift=0.0),
    "null, 15 problems": SimulationDesign(abilities=(0.5, 0.5, -0.5, -0.5), shift=0.0, n_problems=15),
    "shift 0.2": SimulationDesign(abilities=ABILITIES, shift=0.2),
    "shift 0.4": SimulationDesign(abilities=ABILITIES, shift=0.4),
    "shift 0.6": SimulationDesign(abilities=ABILITIES, shift=0.6),
}
PARTS = {"coverage": ("coverage", "coverage, 2 repeats"), "type1": ("null, 50 problems", "null, 15 problems"),
         "power": ("shift 0.2", "shift 0.4", "shift 0.6")}  # fmt: skip
TESTS = (("t", "p_t"), ("wilcoxon", "p_wilcoxon"), ("sign-flip", "p_signflip"))
ALPHA = 0.05


def _truths(design: SimulationDesign) -> dict:
    """True means per (system, variant, metric), paired differences and system differences (points)."""
    table = true_means(design)
    means = {(r.system, r.variant, r.metric): r.value for r in table.itertuples()}
    names = [*design.system_names(), "all systems"]
    diffs = {(s, m): means[(s, "constraint", m)] - means[(s, "goal", m)] for s in names for m in METRICS}
    pairs = {(a, b): means[(a, "overall", "item_f1")] - means[(b, "overall", "item_f1")]
             for a in design.system_names() for b in design.system_names() if a != b}  # fmt: skip
    return {"means": means, "diffs": diffs, "pairs": pairs}


def _covered(low, high, truth) -> np.ndarray:
    return (np.asarray(low) <= np.asarray(truth)) & (np.asarray(truth) <= np.asarray(high))


def _coverage_rep(args):
    name, rep, seed, n_boot, plain = args
    design = DESIGNS[name]
    truth = TRUTHS[name]
    scores = simulate_scores(design, seed=seed + rep)
    hits = defaultdict(list)
    for expand in ((False,) if plain else (True,)):
        _resample.EXPAND_LEVEL = expand
        label = "expanded" if expand else "plain"
        for method in ("bca", "percentile"):
            m = bootstrap_means(scores, pooled=True, n_boot=n_boot, method=method, seed=rep)
            t = [truth["means"][k] for k in zip(m["system"], m["variant"], m["metric"])]
            ok = _covered(m["ci_low"], m["ci_high"], t)
            for kind, variant, metric, hit in zip(np.where(m["system"] == "all systems", "pooled", "system"),
                                                   m["variant"], m["metric"], ok):  # fmt: skip
                hits[("bootstrap_means", label, method, kind, f"{variant}/{metric}")].append(hit)
            for metric in METRICS:
                p = paired_tests(scores, metric=metric, n_boot=n_boot, n_perm=100, method=method, seed=rep)
                t = [truth["diffs"][(s, metric)] for s in p["system"]]
                ok = _covered(p["ci_low"], p["ci_high"], t)
                for kind, hit in zip(np.where(p["system"] == "all systems", "pooled", "system"), ok):
                    hits[("paired_tests", label, method, kind, metric)].append(hit)
            s = system_matrix(scores, n_boot=n_boot, n_perm=100, method=method, seed=rep)
            t = [truth["pairs"][(a, b)] for a, b in zip(s["system_a"], s["system_b"])]
            first = s["system_a"] < s["system_b"]  # each pair once
            for hit in _covered(s["ci_low"], s["ci_high"], t)[first.to_numpy()]:
                hits[("system_matrix", label, method, "pair", "overall/item_f1")].append(hit)
    _resample.EXPAND_LEVEL = True
    return {k: int(np.sum(v)) for k, v in hits.items()}, {k: len(v) for k, v in hits.items()}


def _tests_rep(args):
    name, rep, seed, n_perm = args
    design = DESIGNS[name]
    scores = simulate_scores(design, seed=seed + rep)
    hits = defaultdict(list)
    for metric in METRICS:
        p = paired_tests(scores, metric=metric, n_boot=100, n_perm=n_perm, method="percentile", seed=rep)
        kinds = np.where(p["system"] == "all systems", "pooled", "system")
        for test, column in TESTS:
            for kind, value in zip(kinds, p[column]):
                # an undefined test (NaN) is no rejection
                hits[("paired_tests", test, kind, metric)].append(bool(value < ALPHA))
    if design.shift == 0.0:
        s = system_matrix(scores, n_boot=100, n_perm=n_perm, method="percentile", seed=rep)
        names = design.system_names()
        null_pairs = {(names[0], names[1]), (names[2], names[3])}
        for a, b, value in zip(s["system_a"], s["system_b"], s["p"]):
            if (a, b) in null_pairs:
                hits[("system_matrix", "sign-flip", "equal systems", "item_f1 overall")].append(bool(value < ALPHA))
    return {k: int(np.sum(v)) for k, v in hits.items()}, {k: len(v) for k, v in hits.items()}


def _init(names):
    global TRUTHS
    TRUTHS = {n: _truths(DESIGNS[n]) for n in names}


def _run(worker, jobs, names, workers):
    hits, totals = defaultdict(int), defaultdict(int)
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers, initializer=_init, initargs=(names,)) as pool:
            results = pool.imap_unordered(worker, jobs, chunksize=4)
            for h, n in results:
                for k in h:
                    hits[k] += h[k]
                    totals[k] += n[k]
    else:
        _init(names)
        for h, n in map(worker, jobs):
            for k in h:
                hits[k] += h[k]
                totals[k] += n[k]
    return hits, totals


def _table(hits, totals, columns, reps):
    rows = []
    for key in sorted(hits):
        rate = hits[key] / totals[key]
        per_rep = totals[key] / reps  # results per replication in this cell (correlated within one)
        rows.append((*key, rate, np.sqrt(rate * (1 - rate) / reps), totals[key], per_rep))
    return pd.DataFrame(rows, columns=[*columns, "rate", "mc_se", "results", "per_rep"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", nargs="+", default=["all"], choices=["all", *PARTS])
    parser.add_argument("--reps", type=int, default=2000, help="replications per design (default 2000)")
    parser.add_argument("--power-reps", type=int, default=None,
                        help="replications per power design (default: --reps / 2)")
    parser.add_argument("--n-boot", type=int, default=2000, help="bootstrap resamples per interval (default 2000)")
    parser.add_argument("--n-perm", type=int, default=2000, help="sign patterns of a Monte Carlo sign-flip test")
    parser.add_argument("--plain", action="store_true", help="coverage of the intervals without the expansion instead")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--seed", type=int, default=20240611)
    parser.add_argument("--out", help="write every rate as JSON to this file")
    args = parser.parse_args(argv)
    parts = list(PARTS) if "all" in args.part else args.part
    print(f"# sgr_kit.stats validity: {platform.python_version()}, numpy {np.__version__}, pandas {pd.__version__}, "
          f"{args.workers} worker(s), reps={args.reps}, n_boot={args.n_boot}, n_perm={args.n_perm}")  # fmt: skip
    report = {}
    pd.set_option("display.width", 200)
    for part in parts:
        started = time.perf_counter()
        reps = args.reps if part != "power" else (args.power_reps or max(args.reps // 2, 1))
        names = PARTS[part]
        out = []
        for name in names:
            if part == "coverage":
                jobs = [(name, r, args.seed, args.n_boot, args.plain) for r in range(reps)]
                hits, totals = _run(_coverage_rep, jobs, names, args.workers)
                table = _table(hits, totals, ["function", "level", "method", "unit", "cell"], reps)
            else:
                jobs = [(name, r, args.seed, args.n_perm) for r in range(reps)]
                hits, totals = _run(_tests_rep, jobs, names, args.workers)
                table = _table(hits, totals, ["function", "test", "unit", "metric"], reps)
            table.insert(0, "design", name)
            out.append(table)
        result = pd.concat(out, ignore_index=True)
        print(f"\n## {part} ({reps} replications per design, {time.perf_counter() - started:.0f} s)\n")
        if part == "coverage":
            summary = result.groupby(["design", "function", "level", "method", "unit"], sort=False).agg(
                mean=("rate", "mean"), min=("rate", "min"), max=("rate", "max"), cells=("rate", "size"))
            print(summary.round(4).to_string())
        else:
            if part == "power":
                truth = {n: _truths(DESIGNS[n])["diffs"] for n in names}
                result["true_diff"] = [
                    np.mean([v for (s, m), v in truth[d].items() if m == metric and s != "all systems"])
                    if unit == "system" else truth[d][("all systems", metric)]
                    for d, unit, metric in zip(result["design"], result["unit"], result["metric"])
                ]  # fmt: skip
            print(result.round(4).to_string(index=False))
        report[part] = result.to_dict("records")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(report, fh, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
