"""Shell command lines built from argv words: every word is quoted, operators come from a fixed set.

This is the one place where text for a remote shell is assembled. A value never reaches a shell unquoted:
``join`` quotes every word with ``shlex.quote`` except ``Op`` instances, and ``Op`` only accepts the operators
listed in ``OPERATORS``. Scripts that need shell logic are constants run as ``sh -c SCRIPT sh ARG...``, so
their values arrive as positional parameters, never spliced into the script text.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Iterable, Union

OPERATORS = frozenset({"&&", "||", ";", "|", "&", ">>", "<", "2>&1", "$!"})


class Op(str):
    """A shell operator (``&&``, ``>``, ``2>&1`` ..., and ``$!``): the only text ``join`` leaves unquoted."""

    def __new__(cls, text: str) -> "Op":
        if text not in OPERATORS:
            raise ValueError(f"not a shell operator this module allows: {text!r}")
        return super().__new__(cls, text)


AND, OR, THEN, PIPE, BACKGROUND = Op("&&"), Op("||"), Op(";"), Op("|"), Op("&")
APPEND, FROM, ERR_TO_OUT = Op(">>"), Op("<"), Op("2>&1")
LAST_BACKGROUND_PID = Op("$!")

Word = Union[str, Op]


def join(words: Iterable[Word | int]) -> str:
    """One shell command line: each word quoted by ``shlex.quote``, operators kept as they are."""
    return " ".join(w if isinstance(w, Op) else shlex.quote(str(w)) for w in words)


def script(text: str, *args: str | int) -> list[Word]:
    """Words running the constant ``text`` with ``sh -c``; ``args`` become ``$1``, ``$2``, ..."""
    return ["sh", "-c", text, "sh", *(str(a) for a in args)]


# Runs "$@" with stdin closed and ends it when this shell's stdin reaches its end: an SSH channel's stdin ends when
# the client closes the channel or the connection drops, so a follower never outlives its reader on the host.
TIED = ('exec 3<&0\n'
        '"$@" </dev/null 3<&- &\n'
        'p=$!\n'
        '{ while read -r _ <&3; do :; done; kill -TERM "$p"; } >/dev/null 2>&1 &\n'
        'w=$!\n'
        'wait "$p"; s=$?\n'
        'kill "$w" 2>/dev/null\n'
        'exit "$s"\n')


DEFAULT_OUTPUT_LIMIT = 16 * 1048576
"""Bytes of stdout a command may print (mtptui.remote.bounded cuts it there, on the host)."""


@dataclass(frozen=True)
class Command:
    """A command for a host: its words, optional stdin, whether it changes the host, and how much it may print.

    ``line`` is exactly what the shell receives; dry runs print ``shown``, the same line with secret values
    masked, so what is shown is what runs, secrets apart.
    """

    words: tuple[Word, ...]
    what: str = ""
    input: bytes | None = None
    changes_host: bool = False
    output_limit: int = DEFAULT_OUTPUT_LIMIT

    @classmethod
    def of(cls, words: Iterable[Word | int], what: str = "", *, input: bytes | None = None,
           changes_host: bool = False, output_limit: int = DEFAULT_OUTPUT_LIMIT) -> "Command":
        return cls(tuple(w if isinstance(w, Op) else str(w) for w in words), what, input, changes_host, output_limit)

    @property
    def line(self) -> str:
        return join(self.words)

    @property
    def shown(self) -> str:
        """``line`` with secret values masked (mtptui.secrets): what a dry run, a plan or a dialog prints."""
        from mtptui.secrets import mask_argv

        return join(word if isinstance(word, Op) else masked for word, masked in zip(self.words, mask_argv(self.words)))

    def __str__(self) -> str:
        return self.line

    def tied_to_stdin(self) -> "Command":
        """This command, ended by the host when the caller's side of stdin closes (see ``TIED``)."""
        if any(isinstance(word, Op) for word in self.words):
            raise ValueError("only a simple command can be tied to its stdin")
        return Command.of(script(TIED, *self.words), self.what, changes_host=self.changes_host)
