"""Coverage of the bootstrap intervals of sgr_kit.annotate.agreement, on SYNTHETIC annotators with known truth.

Each replication draws the true category of every answer (shares like the paper's Table 4:
scope drift most common, correct about one in nine), and each annotator gives the true
category with probability ``accuracy``, else a category at random
(:func:`sgr_kit.stats.agreement.simulate_annotators`); with ``missing`` > 0 each label is
left out with that probability. The population values are exact:
:func:`~sgr_kit.stats.agreement.population_kappa` for Cohen's kappa, Fleiss' kappa and
(in the limit) Krippendorff's alpha, and for percent agreement ``sum_t pi_t sum_c
q(c|t)^m`` (all ``m`` agree; ``m = 2`` for a pair; ``population_agreement``). A row counts how often the 95 %
interval held the population value; the Monte Carlo standard error is
``sqrt(p (1 - p) / reps)`` (about 1.3 points at 300 replications).

The last designs give the answers tasks (11 answers to each of 16 tasks) of different
difficulty: on each task the annotators' accuracy is ``accuracy +- spread`` (each with
probability one half), so answers to one task agree alike. They are run twice: with the
default bootstrap over tasks (``cluster="task_id"``) and over answers taken as independent
(``cluster=None``), which is what the intervals did before.

    .venv/bin/python benchmarks/agreement_coverage.py            # 300 replications per design
    .venv/bin/python benchmarks/agreement_coverage.py --reps 100 # quicker
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from sgr_kit.stats.agreement import agreement, population_agreement, population_kappa, simulate_annotators

#: Category shares like Table 4 (the six error types then correct), and a small not-analyzable share.
SHARES = [0.33, 0.24, 0.09, 0.07, 0.06, 0.09, 0.11, 0.01]
DESIGNS = [  # (answers, annotators, accuracy, missing, tasks, spread of accuracy between tasks)
    (176, 2, 0.80, 0.0, None, 0.0), (176, 2, 0.60, 0.0, None, 0.0), (176, 3, 0.70, 0.0, None, 0.0),
    (176, 3, 0.70, 0.1, None, 0.0), (44, 2, 0.80, 0.0, None, 0.0), (44, 3, 0.70, 0.0, None, 0.0),
    (176, 2, 0.70, 0.0, 16, 0.25), (176, 3, 0.70, 0.0, 16, 0.25),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--n-boot", type=int, default=2000)
    parser.add_argument("--out", default=None, help="write the coverage table to this CSV file")
    args = parser.parse_args()
    rows = []
    start = time.perf_counter()
    for n_items, m, accuracy, missing, tasks, spread in DESIGNS:
        kappa = population_kappa(accuracy=accuracy, shares=SHARES, spread=spread)
        truth = {("percent_agreement", "pair"): population_agreement(accuracy=accuracy, shares=SHARES, spread=spread),
                 ("percent_agreement", "all"): population_agreement(accuracy=accuracy, shares=SHARES, annotators=m,
                                                                    spread=spread),
                 ("cohen_kappa", "pair"): kappa, ("fleiss_kappa", "all"): kappa, ("krippendorff_alpha", "all"): kappa}
        clusters = ("task_id", None) if tasks else ("task_id",)  # without tasks every answer is its own task
        hits = {(key, c): 0 for key in truth for c in clusters}
        widths = {(key, c): [] for key in truth for c in clusters}
        for rep in range(args.reps):
            labels = simulate_annotators(n_items, m, accuracy=accuracy, shares=SHARES, seed=rep, missing=missing,
                                         tasks=tasks, spread=spread)
            for cluster in clusters:
                table = agreement(labels, n_boot=args.n_boot, seed=rep, cluster=cluster)
                for (measure, who), value in truth.items():
                    chosen = table[(table["measure"] == measure) & ((table["annotators"] == "all") == (who == "all"))]
                    row = chosen.iloc[0]  # the first pair stands for every pair (they are exchangeable)
                    hits[((measure, who), cluster)] += bool(row["ci_low"] <= value <= row["ci_high"])
                    widths[((measure, who), cluster)].append(row["ci_high"] - row["ci_low"])
        for ((measure, who), cluster), hit in hits.items():
            p = hit / args.reps
            rows.append({"answers": n_items, "annotators": m, "accuracy": accuracy, "missing": missing,
                         "tasks": tasks or n_items, "spread": spread,
                         "resampled": "tasks" if cluster else "answers",
                         "measure": measure, "set": who, "true_value": round(truth[(measure, who)], 4),
                         "coverage": round(p, 3), "mc_se": round(float(np.sqrt(p * (1 - p) / args.reps)), 3),
                         "mean_width": round(float(np.mean(widths[((measure, who), cluster)])), 3)})
        print(f"design {n_items} answers x {m} annotators, accuracy {accuracy} +- {spread}, missing {missing}, "
              f"{tasks or n_items} tasks: done ({time.perf_counter() - start:.0f} s)", flush=True)
    table = pd.DataFrame(rows)
    print(f"\nSYNTHETIC annotators; {args.reps} replications per design, {args.n_boot} resamples, 95% intervals")
    print(table.to_string(index=False))
    if args.out:
        table.to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
