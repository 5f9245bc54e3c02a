"""inspect_ai's entry point for sgr-kit (``[project.entry-points.inspect_ai]``): registers the task
``sgr_kit/sgr_bench`` and the scorer ``sgr_kit/sgr_bench`` so that ``inspect eval sgr_kit/sgr_bench`` finds them."""

from .scorer import sgr_bench_scorer  # noqa: F401
from .task import sgr_bench  # noqa: F401
