"""SYNTHETIC trajectories for the demo's answers, consistent with the error each answer carries.

The paper audits the trajectories of its eight CLI agents only (commercial products expose
none, Appendix G), so the demo writes one trajectory per answer of the eight CLI systems
(``data/demo/trajectories.jsonl``, in the documented format of :mod:`sgr_kit.trajectories`),
each ending in exactly the answer of ``runs.jsonl``. What the trajectory does follows the
failure type injected into the answer (``truth.csv``; the audit labels of ``audit.csv`` are the
same for the audited slots), read as Appendix G defines the types:

``correct``, ``final_answer``, ``page_misreading``
    A search, the task's site (``start_url``), the retrieval state set with the right filters,
    every matching record's detail page: a correct trajectory. A final-answer composition error
    has a correct trajectory and a wrong table; a page misreading reads the right pages.
``scope_drift``
    Reaches the site but sets a neighbouring slice (``scope=neighbouring``, another period):
    the right website with the wrong filters (an answer that nothing qualifies: the wrong
    slice listed no records).
``criterion_mismatch``
    Reaches the site with the right scope but another field definition (``measure=alternative``).
``dependency_error``
    Reaches the site and its list, opens only part of the detail pages and never goes back.
``intent_rewriting``
    Hands a rewritten, easier task to a sub-agent that searches the site by keyword only;
    with high severity (>= 0.75) it is a retrieval failure: the answer is put together from
    search results and third-party pages, and the site is never reached.

Every record says ``"synthetic": true``, every page text starts with ``SYNTHETIC``, and the
hosts that are not the task's site are reserved ``.example`` names. The task's site is the
host of its ``start_url`` or ``all_involved_urls``; a task without either gets a synthetic
host per domain (``<domain>.example``). Generated from the demo seed: the same seed gives the
same file.
"""

from __future__ import annotations

from random import Random
from typing import Iterable, Mapping
from urllib.parse import urlencode, urlsplit

__all__ = ["RETRIEVAL_FAILURE_SEVERITY", "OFF_SITE_HOSTS", "site_url", "demo_trajectories"]

#: Intent rewriting at least this severe never reaches the site (answers from search results).
RETRIEVAL_FAILURE_SEVERITY = 0.75
#: Hosts an agent visits that are not the task's site (reserved names: nothing real).
OFF_SITE_HOSTS = ("search.example", "wiki.example", "data-aggregator.example", "blog.example")
_NOTE = "SYNTHETIC trajectory simulated by sgr_kit.demo; not a real agent run."
_MAX_PAGES = 8  # detail pages opened at most (a long list is read from its result pages)


def site_url(record: Mapping) -> str:
    """The task's site as a URL: ``start_url``, else the first of ``all_involved_urls``, else ``<domain>.example``.

    Examples
    --------
    >>> site_url({"domain": "NVD", "start_url": "https://nvd.nist.gov/vuln/search"})
    'https://nvd.nist.gov/vuln/search'
    >>> site_url({"domain": "CENSUS_GOV"})
    'https://census-gov.example/'
    """
    for url in (record.get("start_url"), *(record.get("all_involved_urls") or ())):
        if isinstance(url, str) and urlsplit(url).hostname:
            return url
    return f"https://{str(record['domain']).lower().replace('_', '-')}.example/"


def _rows(record: Mapping) -> int:
    stated = record.get("oracle_output_cardinality")
    if isinstance(stated, int) and stated > 0:
        return stated
    return max(1, len([line for line in str(record.get("oracle_answer", "")).splitlines() if line.strip()]))


class _Walk:
    """Builds one trajectory's steps, with a clock and token counts from a seeded generator."""

    def __init__(self, rng: Random) -> None:
        self.rng, self.t, self.steps = rng, 0.0, []

    def add(self, kind: str, *, tool: str = "", text: str = "", **fields) -> None:
        self.t += round(self.rng.uniform(1.0, 9.0), 1)
        step = {"kind": kind, **({"tool": tool} if tool else {}), **fields,
                "text": text, "t": round(self.t, 1), "tokens": self.rng.randint(150, 1800)}  # fmt: skip
        self.steps.append(step)

    def search(self, query: str) -> None:
        self.add("search", tool="web_search", query=query, text="SYNTHETIC search results")

    def fetch(self, url: str, what: str) -> None:
        kind = "pdf" if url.endswith(".pdf") else "fetch"
        self.add(kind, tool="fetch", url=url, text=f"SYNTHETIC page: {what}")


def _trajectory(record: Mapping, answer: str | None, injected: str, severity: float, rng: Random) -> list[dict]:
    base = site_url(record).rstrip("/")
    scenario = record["metadata"].get("base_id", record["task_id"]) if isinstance(record.get("metadata"), Mapping) \
        else record["task_id"]
    domain = str(record["domain"])
    n_rows = _rows(record)
    walk = _Walk(rng)
    walk.search(f"{domain.replace('_', ' ').lower()} {scenario} records")
    nothing = answer is None or answer.strip() in ("", "NONE")
    if injected == "intent_rewriting" and severity >= RETRIEVAL_FAILURE_SEVERITY:
        walk.search(f"{scenario} list summary")
        for host in rng.sample(OFF_SITE_HOSTS[1:], 2):
            walk.fetch(f"https://{host}/{scenario}", "third-party summary")
        walk.add("message", text="SYNTHETIC: writing the table from the summaries found (site not opened).")
    else:
        walk.fetch(base, "start page")
        filters = {"scenario": scenario, "scope": "target", "period": "as_stated"}
        if injected == "scope_drift":
            filters.update(scope="neighbouring", period=rng.choice(["previous", "all"]))
        elif injected == "criterion_mismatch":
            filters["measure"] = "alternative"
        elif injected == "intent_rewriting":
            walk.add("tool", tool="Task", text=f"SYNTHETIC sub-agent: 'find some well-known records of {scenario}' "
                                               f"(exhaustive search and filters dropped)")  # fmt: skip
            filters = {"q": scenario}
        walk.fetch(f"{base}?{urlencode(filters)}", "result list (no records)" if nothing else "result list")
        opened = 0 if nothing else n_rows
        if injected == "dependency_error":
            opened = max(1, round(n_rows * (1 - severity) * 0.8))
        elif injected == "intent_rewriting":
            opened = max(1, min(n_rows, 2))
        for i in range(min(opened, _MAX_PAGES)):  # nothing listed: no page to open
            walk.fetch(f"{base}/record/{scenario}-{i + 1}", f"record {i + 1}")
        if injected in ("correct", "final_answer") and rng.random() < 0.5:
            walk.add("tool", tool="python", text="SYNTHETIC: sorted and de-duplicated the rows")
        walk.add("message", text="SYNTHETIC: composing the table.")
    if answer is not None:
        walk.add("answer", text=answer)
    return walk.steps


def demo_trajectories(
    records: Iterable[Mapping],
    runs: Iterable[Mapping],
    truth: Iterable[Mapping],
    *,
    systems: Iterable[str],
    seed: int,
) -> list[dict]:
    """One SYNTHETIC trajectory record per answer of ``systems`` (see the module docstring).

    Parameters
    ----------
    records : iterable of dict
        The demo's task records (both variants).
    runs : iterable of dict
        ``system, task_id, repeat, answer`` (the demo's ``runs.jsonl``).
    truth : iterable of dict
        ``system, task_id, repeat, injected, severity`` (the demo's ``truth.csv``).
    systems : iterable of str
        The systems that get trajectories (the demo: the eight CLI systems).
    seed : int
        The demo seed.

    Returns
    -------
    list of dict
        Records ``system, task_id, repeat, synthetic, note, steps`` in the order of ``runs``;
        the last step is the run's answer (none when the answer is null).

    Examples
    --------
    >>> rec = {"task_id": "nvd_001", "domain": "NVD", "start_url": "https://nvd.nist.gov/vuln/search",
    ...        "oracle_output_cardinality": 1, "metadata": {"base_id": "nvd_001"}}
    >>> runs = [{"system": "s", "task_id": "nvd_001", "repeat": 0, "answer": "cve|score\\nCVE-2|9.8"}]
    >>> truth = [{"system": "s", "task_id": "nvd_001", "repeat": 0, "injected": "scope_drift", "severity": "0.9"}]
    >>> (tr,) = demo_trajectories([rec], runs, truth, systems=["s"], seed=1)
    >>> [s["kind"] for s in tr["steps"]], tr["steps"][2]["url"]
    (['search', 'fetch', 'fetch', 'fetch', 'message', 'answer'], \
'https://nvd.nist.gov/vuln/search?scenario=nvd_001&scope=neighbouring&period=all')
    """
    tasks = {r["task_id"]: r for r in records}
    keep = set(systems)
    kinds = {(t["system"], t["task_id"], int(t["repeat"])): (t["injected"], float(t["severity"])) for t in truth}
    out = []
    for run in runs:
        if run["system"] not in keep:
            continue
        key = (run["system"], run["task_id"], int(run["repeat"]))
        injected, severity = kinds.get(key, ("correct", 0.0))
        rng = Random(f"sgr-demo-trajectory-{seed}-{key[0]}-{key[1]}-{key[2]}")
        steps = _trajectory(tasks[run["task_id"]], run["answer"], injected, severity, rng)
        out.append({"system": key[0], "task_id": key[1], "repeat": key[2], "synthetic": True, "note": _NOTE,
                    "steps": steps})  # fmt: skip
    return out
