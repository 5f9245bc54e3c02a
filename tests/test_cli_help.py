"""``sgr-kit --version`` and a help text for every option of every subcommand."""

from __future__ import annotations

import argparse

import pytest

import sgr_kit
from sgr_kit.cli import build_parser, main


def test_version(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"sgr-kit {sgr_kit.__version__}"


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_option_of_every_subcommand_has_help():
    parser = build_parser()
    missing = []
    for name, sub in {"": parser, **_subparsers(parser)}.items():
        assert sub.description or name == "", f"subcommand {name} has no description"
        for action in sub._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            if not action.help:
                missing.append(f"{name or 'sgr-kit'} {'/'.join(action.option_strings) or action.dest}")
    assert not missing, missing


@pytest.mark.parametrize("command", ["score", "validate", "summary", "demo", "report", "audit"])
def test_help_of_each_subcommand_prints(command, capsys):
    with pytest.raises(SystemExit) as stop:
        main([command, "--help"])
    assert stop.value.code == 0
    assert "usage: sgr-kit " + command in capsys.readouterr().out
