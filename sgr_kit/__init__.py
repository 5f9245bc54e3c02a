"""sgr-kit: scoring and analysis toolkit for SGR-Bench."""

__version__ = "0.1.0"
