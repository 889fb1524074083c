"""Parse a long argv in parts, so that 100,000 words take linear time.

argparse's option loop is quadratic in the options it is given at once: for each option it scans every option
index to find the next one (``min([index for index in option_string_indices if index >= start_index])``), so
a unit's ExecStart of 100,000 words took minutes. The argv is cut only just before a word argparse always reads
as an option (a dash word without a space that is not a negative number, before any ``--``), so every option
keeps its values in its part; the parts fill one namespace in order, which is what parsing the whole does, and
words nobody takes are reported at the end in argparse's own sentence.
"""

from __future__ import annotations

import argparse
import re
from typing import Iterator

from mtptui.engines.sglang.flags.errors import FlagError

PART_OPTIONS = 64
_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")  # argparse's own test
AMBIGUOUS = "error: ambiguous option: "


def _always_an_option(word: str) -> bool:
    return len(word) > 1 and word[0] == "-" and " " not in word and not _NEGATIVE_NUMBER.match(word)


def parts(argv: list[str], size: int = PART_OPTIONS) -> Iterator[list[str]]:
    """``argv`` cut before every ``size``-th option word, never after a ``--``."""
    start = seen = 0
    for index, word in enumerate(argv):
        if word == "--":
            break
        if _always_an_option(word):
            if seen == size:
                yield argv[start:index]
                start, seen = index, 0
            seen += 1
    yield argv[start:]


def parse_in_parts(parser: argparse.ArgumentParser, argv: list[str], size: int = PART_OPTIONS) -> argparse.Namespace:
    """``parser.parse_args(argv)`` in parts, for a parser of options only whose ``error`` raises FlagError.

    argparse reads every word before it runs any option, so an ambiguous abbreviation anywhere is its first
    error; otherwise the first failing option is, and unrecognized words come last.
    """
    namespace, unknown, first_error = argparse.Namespace(), [], None
    for part in parts(argv, size):
        try:
            namespace, rest = parser.parse_known_args(part, namespace)
        except FlagError as exc:
            if AMBIGUOUS in str(exc):
                raise
            first_error = first_error or exc
            continue
        unknown += rest
    if first_error is not None:
        raise first_error
    if unknown:
        parser.error("unrecognized arguments: %s" % " ".join(unknown))
    return namespace
