"""Simulated scores tables with the benchmark's structure and known true means.

Used to check the statistics of :mod:`sgr_kit.stats` by simulation (coverage of the
intervals, type-I error and power of the tests) and to plan a study. Every answer
gets a latent quality

    z = ability[system] + shift[variant] + u[problem] + e[problem, variant]
        + g[system, problem, variant] + noise[repeat]

with independent normal terms: ``u`` is the difficulty of the base problem, shared
by its two variants and by every system (so the variants of a problem are
correlated, and so are the systems on it); ``e`` is specific to one variant and
shared by every system; ``g`` is specific to one system's task; ``noise`` to one
repeat. The scores are bounded, zero-inflated functions of ``z`` with ties at 0 and
1 (Item-F1 and Row-F1 on a grid of twelfths, P.O.A. on a grid of sixths), and a
share of answers fails to parse (``parse_failure``: no metrics, 0 under the
``zero`` policy). Because every term is normal, each answer's ``z`` is normal with a
known mean and variance, and the true mean of a metric for a (system, variant) is a
finite sum of normal probabilities (:func:`true_means`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import special

from ..schema import METRICS

__all__ = ["SimulationDesign", "simulate_scores", "true_means"]

_GRID = {"item_f1": 12, "row_f1": 12, "poa": 6}
_SHIFT = {"item_f1": 0.0, "row_f1": -1.2, "poa": 0.8}
_SLOPE = {"item_f1": 1.0, "row_f1": 1.0, "poa": 2.0}


@dataclass(frozen=True)
class SimulationDesign:
    """The parameters of a simulated benchmark (latent scale; see the module docstring).

    ``abilities`` gives one system per entry; ``shift`` is the latent constraint-minus-goal
    effect (0: the two variants are exchangeable within a pair). ``shared_problems=False``
    gives every system its own problems (independent replications in one table).
    """

    abilities: tuple[float, ...] = (0.6, 0.2, -0.2, -0.8)
    shift: float = 0.0
    n_problems: int = 50
    sd_problem: float = 1.0
    sd_variant: float = 0.5
    sd_task: float = 0.6
    sd_repeat: float = 0.4
    p_failure: float = 0.04
    n_repeats: int = 1
    shared_problems: bool = True
    systems: tuple[str, ...] = field(default=())

    def system_names(self) -> tuple[str, ...]:
        """The systems' names (``sys_01``, ``sys_02``, ... unless given)."""
        return self.systems or tuple(f"sys_{i + 1:02d}" for i in range(len(self.abilities)))

    def latent_sd(self) -> float:
        """Standard deviation of one answer's latent quality."""
        return float(np.sqrt(self.sd_problem**2 + self.sd_variant**2 + self.sd_task**2 + self.sd_repeat**2))


def _score(z: np.ndarray, metric: str) -> np.ndarray:
    """A bounded score with ties at 0 and 1, on the metric's grid."""
    raw = 1.3 * special.expit(_SLOPE[metric] * (z + _SHIFT[metric])) - 0.15
    grid = _GRID[metric]
    return np.round(np.clip(raw, 0.0, 1.0) * grid) / grid


def simulate_scores(design: SimulationDesign, *, seed: int | np.random.Generator = 0) -> pd.DataFrame:
    """One simulated scores table (the columns of ``sgr-kit score`` that the statistics use).

    Returns
    -------
    DataFrame
        ``system, task_id, base_id, variant, repeat, status, item_f1, row_f1, poa,
        family, bin, synthetic`` (``synthetic`` is True); metrics are NaN for
        ``parse_failure`` answers.

    Examples
    --------
    >>> s = simulate_scores(SimulationDesign(abilities=(0.0, 1.0), n_problems=3), seed=1)
    >>> len(s), sorted(s["variant"].unique()), bool(s["synthetic"].all())
    (12, ['constraint', 'goal'], True)
    """
    rng = np.random.default_rng(seed)
    n_sys, n_prob, n_rep = len(design.abilities), design.n_problems, design.n_repeats
    sets = n_sys if not design.shared_problems else 1
    u = rng.normal(0, design.sd_problem, size=(sets, n_prob, 1))
    e = rng.normal(0, design.sd_variant, size=(sets, n_prob, 2))
    g = rng.normal(0, design.sd_task, size=(n_sys, n_prob, 2))
    noise = rng.normal(0, design.sd_repeat, size=(n_sys, n_prob, 2, n_rep))
    ability = np.asarray(design.abilities, dtype=float)[:, None, None]
    shift = np.array([design.shift / 2, -design.shift / 2])[None, None, :]
    z = (ability + shift + u + e + g)[..., None] + noise
    failed = rng.random(z.shape) < design.p_failure
    s_idx, p_idx, v_idx, r_idx = (a.ravel() for a in np.indices(z.shape))
    names = np.asarray(design.system_names(), dtype=object)
    base = np.char.add("sim_", np.char.zfill(p_idx.astype(str), 3))
    table = pd.DataFrame({
        "system": names[s_idx],
        "task_id": np.where(v_idx == 0, base, np.char.add(base, "-g")),
        "base_id": base,
        "variant": np.where(v_idx == 0, "constraint", "goal"),
        "repeat": r_idx,
        "status": np.where(failed.ravel(), "parse_failure", "parsed"),
    })  # fmt: skip
    for metric in METRICS:
        table[metric] = np.where(failed, np.nan, _score(z, metric)).ravel()
    table["family"] = np.where(p_idx % 3 == 0, "scholarly archives", "regulatory resources")
    table["bin"] = np.where(p_idx % 2 == 0, "1-2", "3-5")
    table["synthetic"] = True
    return table


def _expected_score(mean: np.ndarray, sd: float, metric: str) -> np.ndarray:
    """``E[score(z)]`` for ``z ~ N(mean, sd^2)``, exactly.

    The score is a rounded increasing function of ``z``, so ``score >= k / G`` exactly when
    ``z`` passes a threshold ``z_k``, and ``E[score] = (1 / G) sum_k P(z >= z_k)``.
    """
    grid = _GRID[metric]
    level = ((np.arange(1, grid + 1) - 0.5) / grid + 0.15) / 1.3  # expit(slope (z + shift)) must reach this
    with np.errstate(divide="ignore"):
        z_k = special.logit(np.clip(level, 0.0, 1.0)) / _SLOPE[metric] - _SHIFT[metric]
    return special.ndtr((np.asarray(mean, dtype=float)[..., None] - z_k) / sd).sum(axis=-1) / grid


def true_means(design: SimulationDesign) -> pd.DataFrame:
    """The true mean of every metric per system and variant under the ``zero`` failure policy.

    ``E[score] = (1 - p_failure) E[score(z)]`` with ``z ~ N(ability + shift, latent_sd^2)``;
    ``E[score(z)]`` is a finite sum of normal probabilities (the score is a rounded,
    increasing function of ``z``).

    Returns
    -------
    DataFrame
        ``system, variant, metric, value, synthetic`` (``value`` in percent points;
        ``synthetic`` is True: a simulated design); ``variant`` is ``constraint``,
        ``goal`` or ``overall`` (their average), and ``system`` also ``all systems``
        (the average over systems).

    Examples
    --------
    >>> t = true_means(SimulationDesign(abilities=(0.0,), shift=0.0))
    >>> c, g = t.query("metric == 'poa' and variant != 'overall' and system == 'sys_01'")["value"]
    >>> abs(c - g) < 1e-9
    True
    """
    sd = design.latent_sd()
    ability = np.asarray(design.abilities, dtype=float)
    rows = []
    for variant, shift in (("constraint", design.shift / 2), ("goal", -design.shift / 2)):
        for metric in METRICS:
            values = 100 * (1 - design.p_failure) * _expected_score(ability + shift, sd, metric)
            rows += [(name, variant, metric, v) for name, v in zip(design.system_names(), values)]
    table = pd.DataFrame(rows, columns=["system", "variant", "metric", "value"])
    overall = table.groupby(["system", "metric"], sort=False, as_index=False)["value"].mean().assign(variant="overall")
    table = pd.concat([table, overall], ignore_index=True)
    pooled = table.groupby(["variant", "metric"], sort=False, as_index=False)["value"].mean()
    pooled["system"] = "all systems"
    out = pd.concat([table, pooled], ignore_index=True)[["system", "variant", "metric", "value"]]
    out["synthetic"] = True
    return out
