"""Shared test fixtures: a task factory, a seeded random generator, the release fixtures.

``make_task`` (fixture) returns :func:`build_task`, which builds a
:class:`sgr_kit.types.Task` from columns and reference rows (or text), e.g.::

    def test_something(make_task):
        task = make_task(("id", "n"), rows=[("a", "1"), ("b", "2")],
                         fields={"n": {"type": "integer"}})
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping, Sequence

import os
import signal
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

from sgr_kit.cli import skip_unused_imports
from sgr_kit.taxonomy import cardinality_bin, classify_domain
from sgr_kit.types import FieldRule, Schema, Task

skip_unused_imports()  # as sgr-kit's commands do: a second of processor time per process that imports nbformat

# The reports built inside a test process take the kernels the one before left (when the environment is the
# same), as a batch script building many reports would: some 2 s of processor time saved per kernel.
# tests/test_report.py checks that a kept kernel runs a page as a new one does.
from sgr_kit.report import keep_kernels  # noqa: E402
from sgr_kit.run.web import ALLOW_PRIVATE_ENV, API_KEY_ENV, SEARCH_URL_ENV  # noqa: E402

# Read by no import: pytest's name of the running test, and what the loopback web fixture (webfixture.py) sets
# for the runner's tools, which a report page never reads.
keep_kernels(2, varying=["PYTEST_CURRENT_TEST", ALLOW_PRIVATE_ENV, API_KEY_ENV, SEARCH_URL_ENV])

# Built once per test session and shared by every worker: the demo report, the wheel and its environment, the manual.
from built_once import (SHARED_BUILDS, build_ahead, clear_away, demo_report, installed_wheel, manual,  # noqa: E402,F401
                        wheel)


def pytest_sessionfinish(session):
    clear_away(session.config)  # the wheel's environment, removed without waiting (tests/built_once.py)


@pytest.fixture(scope="session", autouse=True)
def _long_builds_ahead(request, tmp_path_factory):
    """The wheel, its environment and the manual start building as the session starts (tests/built_once.py)."""
    end = build_ahead(request.session, tmp_path_factory)
    yield
    end()

#: Where the real release-format tasks live, beside the checkout (never copied into it).
RELEASE_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures" / "release-format"
#: Real tasks of the public release in its own format (``normalization``), beside the checkout.
RELEASE_ORIGINAL_DIR = RELEASE_DIR.parent / "release-original"

SEED = 20240611

# A test process started with Ctrl-C ignored (a background job of a script, nohup) would pass
# that on to every command it starts, which then ignores the SIGINT a test sends it (Python
# installs its KeyboardInterrupt handler only where SIGINT is not ignored at start-up). The
# tests' commands get SIGINT as a terminal gives it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Property tests: no per-example deadline (shared, noisy machines); under CI the
# examples are derived from the test itself, so a run is reproducible. Three profiles,
# chosen with the environment variable HYPOTHESIS_PROFILE:
#   ci (default)  100 examples per property test that sets no number of its own, N for one that
#                 sets examples(N); the hostile-input fuzz tests (tests/test_fuzz.py) run
#                 FUZZ_EXAMPLES["ci"] examples each (a third of that for the file readers), about
#                 3,000 in all, in well under a minute on two cores; `make test` (and so CI) runs this one;
#   dev           a fifth of each: `make test-fast`, the inner loop;
#   local         ten times as many of each (HYPOTHESIS_PROFILE=local make test).
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
               derandomize=bool(os.environ.get("CI")))  # fmt: skip
settings.register_profile("ci", max_examples=100, **_COMMON)
settings.register_profile("dev", max_examples=20, **_COMMON)
settings.register_profile("local", max_examples=1000, **_COMMON)
if PROFILE not in ("ci", "dev", "local"):
    raise pytest.UsageError(f"HYPOTHESIS_PROFILE must be 'ci', 'dev' or 'local'; found {PROFILE!r}")
settings.load_profile(PROFILE)
#: Examples per fuzz test under each profile.
FUZZ_EXAMPLES = {"ci": 700, "dev": 140, "local": 7000}[PROFILE]


def examples(n: int) -> int:
    """``n`` examples for a property test under the ci profile; a fifth of that (at least 10) under dev, ten times under local."""
    return {"ci": n, "dev": max(n // 5, 10), "local": n * 10}[PROFILE]


def _fraction(value: Any) -> Fraction:
    return value if isinstance(value, Fraction) else Fraction(str(value))


def field_rule(spec: FieldRule | Mapping[str, Any]) -> FieldRule:
    """A FieldRule from a FieldRule or a release-style dict.

    ``{"type": "decimal", "units": {"deg F": {"offset": 32, "scale_num": 5, "scale_den": 9}}}``;
    a unit may also be given as an ``(offset, scale_num, scale_den)`` tuple.
    """
    if isinstance(spec, FieldRule):
        return spec
    units = {}
    for spelling, conversion in (spec.get("units") or {}).items():
        if isinstance(conversion, Mapping):
            conversion = (conversion.get("offset", 0), conversion.get("scale_num", 1), conversion.get("scale_den", 1))
        units[spelling] = tuple(_fraction(v) for v in conversion)
    return FieldRule(
        type=spec.get("type", "string"),
        aliases=dict(spec.get("aliases") or {}),
        uppercase=bool(spec.get("uppercase", False)),
        units=units,
    )


def table_text(columns: Sequence[str] | None, rows: Sequence[Sequence[str]]) -> str:
    """A pipe table, one line per row, with a header line when ``columns`` is given."""
    lines = ["|".join(columns)] if columns else []
    lines += ["|".join(row) for row in rows]
    return "\n".join(lines)


def build_task(
    columns: Sequence[str] = ("id", "a", "b"),
    reference: str | None = None,
    *,
    rows: Sequence[Sequence[str]] | None = None,
    header: bool = True,
    row_key: Sequence[str] | None = None,
    fields: Mapping[str, FieldRule | Mapping[str, Any]] | None = None,
    record_separator: str | None = None,
    task_id: str = "test_task_001",
    base_id: str | None = None,
    variant: str | None = None,
    domain: str = "NVD",
    gold_rows: int | None = None,
    instruction: str = "",
    output_format: str = "",
    metadata: Mapping[str, Any] | None = None,
    source: str = "tests",
) -> Task:
    """Build a Task for tests.

    Parameters
    ----------
    columns : sequence of str
        Schema columns, in order.
    reference : str, optional
        The reference text; default: ``rows`` as a pipe table.
    rows : sequence of sequence of str, optional
        Reference rows (used when ``reference`` is None; default three rows
        ``(str(i), f"{column}{i}", ...)`` for i = 1, 2, 3, e.g. ``("1", "a1", "b1")``).
    header : bool, default True
        Put a header line above ``rows`` in the built reference.
    row_key : sequence of str, optional
        Default: the first column.
    fields : mapping, optional
        Column -> FieldRule or release-style dict (see :func:`field_rule`).
    record_separator : str, optional
    task_id, base_id, variant, domain : str
        ``variant`` defaults from the id (``-g`` suffix -> goal), ``base_id`` to
        the id without ``-g``; ecosystem and family follow the domain.
    gold_rows : int, optional
        Default: ``len(rows)`` or the number of data lines of ``reference``.
    """
    columns = tuple(columns)
    if reference is None:
        if rows is None:
            rows = [tuple(f"{c}{i}" if n else str(i) for n, c in enumerate(columns)) for i in (1, 2, 3)]
        reference = table_text(columns if header else None, rows)
    if gold_rows is None:
        if rows is not None:
            gold_rows = len(rows)
        else:
            names = "|".join(columns).casefold()
            gold_rows = sum(1 for line in reference.splitlines() if line.strip() and line.strip().casefold() != names)
    schema = Schema(
        columns=columns,
        row_key=tuple(row_key) if row_key is not None else columns[:1],
        fields={c: field_rule(spec) for c, spec in (fields or {}).items()},
        record_separator=record_separator,
    )
    ecosystem, family = classify_domain(domain, warn=False)
    if variant is None:
        variant = "goal" if task_id.endswith("-g") else "constraint"
    return Task(
        task_id=task_id,
        base_id=base_id or task_id.removesuffix("-g"),
        variant=variant,
        domain=domain,
        ecosystem=ecosystem,
        family=family,
        schema=schema,
        reference=reference,
        gold_rows=gold_rows,
        bin=cardinality_bin(gold_rows),
        instruction=instruction,
        output_format=output_format,
        metadata=dict(metadata or {}),
        source=source,
    )


@pytest.hookimpl(trylast=True)  # after pytest-randomly has shuffled the modules and the tests in each
def pytest_collection_modifyitems(config, items):
    """Each half of the tests starts with modules holding a ``slow`` or ``browser`` test; a module's tests stay together.

    pytest-xdist's ``worksteal`` gives the first worker the first half of the list and the second
    worker the rest, and a worker that runs out takes the end of the other's. The heavy modules
    that use a shared build (tests/built_once.py) open the first half, the other heavy modules
    the second, each followed by quick tests: both workers start on long tests and end on quick
    ones, so that a run seldom ends waiting for one long test, nor starts with the second worker
    waiting for a shared build the first is making. Otherwise the (random) order is kept.
    """
    heavy = {item.path for item in items if item.get_closest_marker("slow") or item.get_closest_marker("browser")}
    shared = {item.path for item in items if SHARED_BUILDS & set(getattr(item, "fixturenames", ()))}  # built_once
    first = [item for item in items if item.path in heavy and item.path in shared]
    second = [item for item in items if item.path in heavy and item.path not in shared]
    quick = [item for item in items if item.path not in heavy]
    fill = max(0, len(items) // 2 - len(first))
    items[:] = first + quick[:fill] + second + quick[fill:]


@pytest.fixture(autouse=True)
def _no_figure_left_open():
    """Every pyplot figure a test leaves open is closed after it, as matplotlib's own test suite does.

    Each test starts with no figure open, whatever ran before it in its worker.
    """
    yield
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


@pytest.fixture
def make_task():
    """The :func:`build_task` factory."""
    return build_task


@pytest.fixture
def rng() -> np.random.Generator:
    """A seeded NumPy random generator (same draws on every run)."""
    return np.random.default_rng(SEED)


@pytest.fixture
def release_dir() -> Path:
    """The real release-format fixtures (``../shared/fixtures/release-format``); skips when absent."""
    if not RELEASE_DIR.is_dir():
        pytest.skip("release-format fixtures absent: expected ../shared/fixtures/release-format beside the checkout")
    return RELEASE_DIR


@pytest.fixture
def original_dir() -> Path:
    """Real tasks of the public release in its own format (``../shared/fixtures/release-original``); skips when absent."""
    if not RELEASE_ORIGINAL_DIR.is_dir():
        pytest.skip("release-original fixtures absent: expected ../shared/fixtures/release-original beside the checkout")
    return RELEASE_ORIGINAL_DIR
