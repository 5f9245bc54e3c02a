"""The paper's numbers the demo is calibrated to, gathered from :mod:`sgr_kit.reference`."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Targets", "paper_targets"]


@dataclass(frozen=True)
class Targets:
    """Calibration targets in percent points (counts for the audit tables).

    Attributes
    ----------
    systems : tuple of str
        The eleven systems of Table 2, in its order.
    cli_systems : tuple of str
        The eight CLI systems (Table 2 names) in Table 4's order.
    table2 : dict
        ``(system, variant, metric) -> value``; metric in item_f1, row_f1, poa.
    family : dict
        ``family -> Item-F1`` (section 4.2; families without a published mean are absent).
    bins : dict
        ``(bin, metric) -> value`` (Appendix K; the 11+ bin is not published).
    table4 : dict
        ``system -> {label: count}`` with labels the six error types and ``correct``.
    table5 : dict
        ``family -> {error type: count}``.
    table6 : dict
        ``(label, metric) -> value``; metric in item_f1, row_f1.
    """

    systems: tuple[str, ...]
    cli_systems: tuple[str, ...]
    table2: dict
    family: dict
    bins: dict
    table4: dict
    table5: dict
    table6: dict


def paper_targets() -> Targets:
    """Read the calibration targets from :mod:`sgr_kit.reference`."""
    from sgr_kit import reference as ref

    t2 = ref.table2()
    t2 = t2[t2["variant"].isin(("constraint", "goal"))]
    table2 = {(r.system, r.variant, r.metric): float(r.value) for r in t2.itertuples()}
    family = {r.family: float(r.value) for r in ref.family_item_f1().itertuples()}
    card = ref.cardinality().dropna(subset=["value"])
    bins = {(r.bin, r.quantity): float(r.value) for r in card.itertuples() if r.quantity in ("item_f1", "row_f1")}
    t4 = ref.table4()
    table4: dict = {s: {} for s in ref.CLI_SYSTEMS}
    for r in t4[t4["error_type"].isin((*ref.ERROR_TYPES, "correct")) & (t4["role"] == "count")].itertuples():
        table4[r.system][r.error_type] = int(r.value)
    t5 = ref.table5()
    table5: dict = {}
    for r in t5[(t5["role"] == "count") & t5["error_type"].isin(ref.ERROR_TYPES)].itertuples():
        table5.setdefault(r.family, {})[r.error_type] = int(r.value)
    t6 = ref.table6()
    table6 = {(r.error_type, r.metric): float(r.value) for r in t6.itertuples() if r.metric in ("item_f1", "row_f1")}
    return Targets(
        systems=tuple(ref.SYSTEMS), cli_systems=tuple(ref.CLI_SYSTEMS), table2=table2, family=family,
        bins=bins, table4=table4, table5=table5, table6=table6,
    )
