"""Huge launch command lines (a unit's ExecStart with 100,000 words) are read in linear time, with the same result.

argparse's option loop is quadratic in the options it sees at once (it rescans every option index to find the
next one), so the parser is given the words in parts. No timing here: the tests pin that argparse never sees
more than one part at once, and that parsing in parts gives exactly what parsing the whole gives.
"""

from __future__ import annotations

import argparse

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtptui.engines.sglang.flags import FlagError, parse_command, parse_words
from mtptui.engines.sglang.lint import lint_argv
from mtptui.engines.sglang.flags.argv_parts import PART_OPTIONS, parse_in_parts
from mtptui.engines.sglang.flags.resolve import build_parser

MISSION = ["--speculative-algorithm", "NEXTN", "--speculative-num-steps", "3", "--tp-size", "2",
           "--mem-fraction-static", "0.88", "--context-length", "131072"]


def huge(words: int) -> list[str]:
    argv = ["python3", "-m", "sglang.launch_server", "--model-path", "/m"]
    while len(argv) < words:
        argv += MISSION
    return argv


@pytest.fixture
def argparse_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many words each call of argparse's parse loop was given (the real loop still runs)."""
    sizes: list[int] = []
    real = argparse.ArgumentParser._parse_known_args

    def spy(self, arg_strings, *args, **kwargs):
        sizes.append(len(arg_strings))
        return real(self, arg_strings, *args, **kwargs)

    monkeypatch.setattr(argparse.ArgumentParser, "_parse_known_args", spy)
    return sizes


def test_a_100k_word_exec_start_is_parsed_in_bounded_parts(argparse_calls: list[int]) -> None:
    fs = parse_words(huge(100_000))
    assert fs.model_path == "/m" and fs.flags["--speculative-num-steps"] == 3 and fs.flags["--context-length"] == 131072
    assert len(argparse_calls) > 100 and max(argparse_calls) <= 2 * PART_OPTIONS + 2


def test_a_100k_word_shell_command_is_parsed_in_bounded_parts(argparse_calls: list[int]) -> None:
    fs = parse_command(" ".join(huge(100_000)) + " > /var/log/sglang.log 2>&1 &")
    assert fs.flags["--tensor-parallel-size"] == 2 and max(argparse_calls) <= 2 * PART_OPTIONS + 2


def test_lint_of_a_100k_word_command_line_finds_what_a_short_one_finds(argparse_calls: list[int]) -> None:
    short = lint_argv(huge(25)[3:] + ["--nosuch-flag", "1"], "0.5.12.post1")
    long = lint_argv(huge(100_000)[3:] + ["--nosuch-flag", "1"], "0.5.12.post1")
    assert long[0].flags == short[0].flags
    assert [f.flag for f in long[1]] == [f.flag for f in short[1]] and short[1][0].flag == "--nosuch-flag"
    assert max(argparse_calls) <= 2 * PART_OPTIONS + 2


WORDS = st.sampled_from([
    "--tp-size", "--tp", "--tp=4", "2", "-1", "-2.5", "--model-path", "/m", "--enable-metrics", "--spec",
    "--speculative-algorithm", "NEXTN", "EAGLE", "nosuch", "--cuda-graph-bs", "1", "8", "--nosuch", "x y",
    "--no-enable-metrics", "--", "-", "-x", "--context-length", "32k", "--json-model-override-args", '{"a": 1}',
    "--served-model-name", "--enable-torch-compile", "--port=30001", "--mem-fraction-static", "0.88",
])


def outcome(parse, argv: list[str]):
    try:
        return "ok", vars(parse(argv))
    except FlagError as exc:
        return "error", str(exc)


@settings(max_examples=150, deadline=None)
@given(st.lists(WORDS, max_size=24), st.integers(min_value=1, max_value=4))
def test_parsing_in_parts_is_parsing_the_whole(argv: list[str], size: int) -> None:
    parser = build_parser("0.5.12.post1")
    whole = outcome(lambda words: parser.parse_args(list(words)), argv)
    assert outcome(lambda words: parse_in_parts(parser, words, size), argv) == whole
