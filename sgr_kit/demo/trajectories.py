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

**Usage, durations and costs** (also SYNTHETIC, drawn from a generator of their own so that the
steps above do not change): every model step carries ``input_tokens`` (the context so far),
``cached_input_tokens`` (the previous call's context, read from the cache), ``output_tokens`` (the
step's ``tokens``) and ``reasoning_tokens`` (a share of the output), at levels that differ by
system (:data:`USAGE_LEVELS`); every record carries ``"totals": {"cost_usd", "seconds", "model"}``:
the run's duration in seconds (its last step plus a short tail), the model's (synthetic) name,
and the agent's own cost for the systems whose agent reports one (:data:`REPORTED_COST`; null
for the others, whose cost is priced from ``prices-example.csv``, itself EXAMPLE prices, not
real ones; one system has no price row, so its cost is unknown). A few runs hang after their
last step (a stall: the duration runs 3,000 s past it; about one run in a hundred until the
paper's 6,000 s budget is passed as well), a few of one system call Claude Code's native
``WebFetch`` (which the paper disabled), and one run reads the benchmark's own dataset page with
``curl`` (a ``Bash`` call in place of its ``python`` step). The protocol audit
(:func:`sgr_kit.trajectories.protocol.protocol_flags`) finds exactly these: the runs over the
budget and the stalls (from the durations the records report), the ``WebFetch`` calls and the
``curl`` (a shell reaching the web), and the visit of the benchmark. The ``python`` steps (no
URL) and sub-agent (``Task``) calls the trajectories above hold retrieve nothing from outside
and are not flagged.

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

__all__ = ["RETRIEVAL_FAILURE_SEVERITY", "OFF_SITE_HOSTS", "USAGE_LEVELS", "REPORTED_COST", "BENCHMARK_PAGE",
           "site_url", "demo_trajectories", "example_prices"]

#: Intent rewriting at least this severe never reaches the site (answers from search results).
RETRIEVAL_FAILURE_SEVERITY = 0.75
#: Hosts an agent visits that are not the task's site (reserved names: nothing real).
OFF_SITE_HOSTS = ("search.example", "wiki.example", "data-aggregator.example", "blog.example")
_NOTE = "SYNTHETIC trajectory simulated by sgr_kit.demo; not a real agent run."
_MAX_PAGES = 8  # detail pages opened at most (a long list is read from its result pages)

#: SYNTHETIC usage levels per system: (tokens of the starting context, share of the output spent
#: reasoning, the model's synthetic name). Systems not listed get the last row's levels.
USAGE_LEVELS: dict[str, tuple[int, float, str]] = {
    "Claude Opus 4.7": (14_000, 0.45, "claude-opus-4.7"), "GPT-5.5": (9_000, 0.60, "gpt-5.5"),
    "Gemini 3.1 Pro": (11_000, 0.55, "gemini-3.1-pro"), "Kimi K2.5": (8_000, 0.35, "kimi-k2.5"),
    "GLM-5.1": (7_500, 0.40, "glm-5.1"), "Qwen3.6-Plus": (7_000, 0.30, "qwen3.6-plus"),
    "DeepSeek V4 Pro": (6_500, 0.50, "deepseek-v4-pro"), "Seed-2.0 Pro": (7_000, 0.40, "seed-2.0-pro"),
}  # fmt: skip
#: Systems whose (synthetic) agent reports its own cost, and the rates (USD per million input,
#: cached input and output tokens) it is computed at: EXAMPLE values, not real prices.
REPORTED_COST: dict[str, tuple[float, float, float]] = {
    "Claude Opus 4.7": (5.0, 0.5, 25.0), "Kimi K2.5": (0.6, 0.15, 2.5),
}  # fmt: skip
#: The benchmark's dataset page (the paper's abstract), which one demo run reads.
BENCHMARK_PAGE = "https://huggingface.co/datasets/PKUAIWeb/SGR-BENCH"
_EXAMPLE_PRICES = (  # match, name, input, cached_input, output, per_search: EXAMPLE values, not real prices
    ("system", "GPT-5.5", 1.25, 0.125, 10.0, 0.001), ("system", "Gemini 3.1 Pro", 2.0, 0.2, 12.0, 0.001),
    ("system", "GLM-5.1", 0.6, 0.11, 2.2, 0.001), ("system", "Qwen3.6-Plus", 0.4, 0.08, 1.2, 0.001),
    ("model", "deepseek-v4-pro", 0.55, 0.07, 2.2, 0.001),
)  # fmt: skip
_STALL_SHARE, _OVER_SHARE, _WEBFETCH_SHARE = 0.015, 0.01, 0.04
_VISITOR = "GLM-5.1"  # the system of the one run that reads the benchmark's dataset page


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


def _usage(system: str, steps: list[dict], rng: Random, *, visit: bool) -> dict:
    """Add SYNTHETIC per-step token counts to ``steps`` (in place) and return the record's totals."""
    context, reasoning, model = USAGE_LEVELS.get(system, USAGE_LEVELS["Seed-2.0 Pro"])
    webfetch = system == "Claude Opus 4.7" and rng.random() < _WEBFETCH_SHARE
    previous = 0
    spent = [0, 0, 0]
    for step in steps:
        output = int(step["tokens"])
        step["input_tokens"] = context
        step["cached_input_tokens"] = previous
        step["output_tokens"] = output
        step["reasoning_tokens"] = int(output * reasoning)
        spent = [spent[0] + context - previous, spent[1] + previous, spent[2] + output]
        previous = context
        page = rng.randint(600, 4000) if step["kind"] in ("fetch", "pdf") else rng.randint(80, 400)
        context += output + page
        if webfetch and step["kind"] in ("fetch", "pdf"):
            step["tool"] = "WebFetch"
        if visit and step.get("tool") == "python":
            step.update(tool="Bash", url=BENCHMARK_PAGE, args={"command": f"curl -sL {BENCHMARK_PAGE}"},
                        text="SYNTHETIC: the benchmark's dataset page")  # fmt: skip
    last = steps[-1]["t"] if steps else 0.0
    draw = rng.random()
    if draw < _OVER_SHARE:
        seconds = 6000 + rng.uniform(5, 400)  # hung after its last step until the budget was passed
    elif draw < _OVER_SHARE + _STALL_SHARE:
        seconds = last + rng.uniform(3050, 4500)  # hung, then finished within the budget
    else:
        seconds = last + rng.uniform(1.5, 12.0)
    rates = REPORTED_COST.get(system)
    cost = None
    if rates is not None:
        cost = round((spent[0] * rates[0] + spent[1] * rates[1] + spent[2] * rates[2]) / 1_000_000, 6)
    return {"cost_usd": cost, "seconds": round(seconds, 1), "model": model}


def example_prices() -> str:
    """The demo's ``prices-example.csv``: EXAMPLE prices (USD per million tokens), not real ones.

    Examples
    --------
    >>> example_prices().splitlines()[2]
    'system,model,input,cached_input,output,per_search,note'
    """
    lines = ["# EXAMPLE prices for the SYNTHETIC demo: made up, NOT the real prices of any model or provider.",
             "# USD per million input, cached input and output tokens; per_search: USD per web search call.",
             "system,model,input,cached_input,output,per_search,note"]  # fmt: skip
    for match, name, *prices in _EXAMPLE_PRICES:
        system, model = (name, "") if match == "system" else ("", name)
        lines.append(",".join([system, model, *(f"{v:g}" for v in prices), "EXAMPLE (not a real price)"]))
    return "\n".join(lines) + "\n"


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
        Records ``system, task_id, repeat, synthetic, note, steps, totals`` in the order of
        ``runs``; the last step is the run's answer (none when the answer is null); ``totals``
        holds the run's ``cost_usd`` (null unless its agent reports one), ``seconds`` and ``model``.

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
    out, visited = [], False
    for run in runs:
        if run["system"] not in keep:
            continue
        key = (run["system"], run["task_id"], int(run["repeat"]))
        injected, severity = kinds.get(key, ("correct", 0.0))
        rng = Random(f"sgr-demo-trajectory-{seed}-{key[0]}-{key[1]}-{key[2]}")
        steps = _trajectory(tasks[run["task_id"]], run["answer"], injected, severity, rng)
        visit = not visited and key[0] == _VISITOR and any(step.get("tool") == "python" for step in steps)
        visited = visited or visit
        totals = _usage(key[0], steps, Random(f"sgr-demo-usage-{seed}-{key[0]}-{key[1]}-{key[2]}"), visit=visit)
        out.append({"system": key[0], "task_id": key[1], "repeat": key[2], "synthetic": True, "note": _NOTE,
                    "steps": steps, "totals": totals})  # fmt: skip
    return out
