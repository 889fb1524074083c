"""Quoting: every value reaches the shell as one word, whatever it holds; only fixed operators stay bare."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtptui.remote.shell import AND, Command, Op, join, script

NASTY = ["a b", "it's", 'say "hi"', "$HOME", "`id`", "$(id)", "a;b", "x && y", "*", "~", "-n", "", "\\", "a\nb",
         "#c", "|", ">out", "ß ✓"]


def shell_words(line: str) -> list[str]:
    """What /bin/sh passes to a program for ``line`` followed by the words."""
    out = subprocess.run(["/bin/sh", "-c", f"printf '%s\\0' {line}"], capture_output=True, check=True).stdout
    return out.decode("utf-8").split("\0")[:-1]


def test_each_value_reaches_the_shell_as_one_unchanged_word():
    assert shell_words(join(NASTY)) == NASTY


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="\0", blacklist_categories=("Cs",))),
                min_size=1, max_size=5))
def test_any_text_round_trips_through_a_real_shell(words):
    assert shell_words(join(words)) == words


def test_script_values_are_positional_parameters_not_script_text():
    words = script('printf "%s\\n" "$@"', "a;b", "$(echo pwned)")
    out = subprocess.run(["/bin/sh", "-c", join(words)], capture_output=True, check=True, text=True).stdout
    assert out == "a;b\n$(echo pwned)\n"


def test_only_listed_operators_are_left_unquoted():
    assert join(["true", AND, "echo", "a b"]) == "true && echo 'a b'"
    assert join(["echo", "&&"]) == "echo '&&'"
    with pytest.raises(ValueError):
        Op("; rm -rf /")


def test_command_line_is_what_runs():
    command = Command.of(["echo", 3, "x y"], "say", changes_host=True)
    assert command.line == "echo 3 'x y'"
    assert str(command) == command.line and command.changes_host
