"""Value types of the command line shared by every ``sgr-kit`` command (argparse ``type=`` callables)."""

from __future__ import annotations

import argparse
from typing import Callable

__all__ = ["whole_number"]


def whole_number(least: int = 1, what: str = "") -> Callable[[str], int]:
    """An argparse type reading a whole number of at least ``least`` (``what`` names it in the error).

    Examples
    --------
    >>> whole_number(1, " of worker processes")("4")
    4
    >>> whole_number(0)("-1")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: expected a whole number >= 0; found '-1'
    """

    def read(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            number = least - 1
        if number < least:
            raise argparse.ArgumentTypeError(f"expected a whole number{what} >= {least}; found {value!r}")
        return number

    return read
