"""Split POSIX shell text into words and operators, remembering what was quoted.

Enough of the shell for launch commands: single and double quotes, backslash escapes, backslash-newline
continuations, comments, and the operators that end a simple command or redirect it. Nothing is expanded:
``$VAR`` and backticks stay literal text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SEPARATORS = frozenset({";", "&", "|", "&&", "||", ";;", "(", ")", "\n"})
REDIRECTIONS = frozenset({"<", ">", ">>", ">&", "<&", "&>", "&>>", ">|", "<<", "<<<", "<>"})
_OPERATORS = sorted(SEPARATORS | REDIRECTIONS, key=len, reverse=True)
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_DOUBLE_ESCAPES = '$`"\\\n'
_OPERATOR_CHARS = frozenset("".join(_OPERATORS))
_PLAIN_RUN = re.compile(r"[^\s\\'\"#;&|()<>]+")  # characters that are just part of a word


@dataclass(frozen=True)
class Token:
    """A word (``op`` False) or an operator; ``assignment`` marks an unquoted ``NAME=`` prefix."""

    text: str
    op: bool = False
    assignment: bool = False


class _Word:
    def __init__(self) -> None:
        self.chars: list[str] = []
        self.plain_parts: list[str] = []  # the unquoted, unescaped prefix (a list: a long word stays linear)
        self.quoted = False
        self.started = False

    @property
    def plain(self) -> str:
        return "".join(self.plain_parts)

    def add(self, text: str, quoted: bool) -> None:
        self.started = True
        if quoted:
            self.quoted = True
        elif not self.quoted:
            self.plain_parts.append(text)
        self.chars.append(text)

    def token(self) -> Token:
        return Token("".join(self.chars), assignment=bool(_ASSIGNMENT.match(self.plain)))


def _single(text: str, i: int, word: _Word) -> int:
    end = text.find("'", i + 1)
    if end < 0:
        raise ValueError("unterminated single quote")
    word.add(text[i + 1:end], quoted=True)
    return end + 1


def _double(text: str, i: int, word: _Word) -> int:
    i += 1
    word.add("", quoted=True)
    while i < len(text):
        char = text[i]
        if char == '"':
            return i + 1
        if char == "\\" and i + 1 < len(text) and text[i + 1] in _DOUBLE_ESCAPES:
            if text[i + 1] != "\n":
                word.add(text[i + 1], quoted=True)
            i += 2
            continue
        word.add(char, quoted=True)
        i += 1
    raise ValueError("unterminated double quote")


def _operator(text: str, i: int) -> str | None:
    for op in _OPERATORS:
        if text.startswith(op, i):
            return op
    return None


class _Lexer:
    """One pass over the text; ``step`` reads one character (or quote, escape, operator) at ``i``."""

    def __init__(self, text: str) -> None:
        self.text, self.i = text, 0
        self.tokens: list[Token] = []
        self.word = _Word()

    def flush(self) -> None:
        if self.word.started:
            self.tokens.append(self.word.token())
        self.word = _Word()

    def backslash(self) -> None:
        text, i = self.text, self.i
        if text.startswith("\\\r\n", i):
            self.i += 3
        elif text[i + 1:i + 2] == "\n":
            self.i += 2
        else:
            self.word.add(text[i + 1:i + 2], quoted=True)
            self.i += 2

    def operator(self, op: str) -> None:
        word = self.word
        if op[0] in "<>" and word.started and not word.quoted and word.plain.isdigit():
            self.word = _Word()  # an fd number such as the 2 of 2>&1
        self.flush()
        self.tokens.append(Token(op, op=True))
        self.i += len(op)

    def step(self) -> None:
        char = self.text[self.i]
        if char == "\\":
            self.backslash()
        elif char == "'":
            self.i = _single(self.text, self.i, self.word)
        elif char == '"':
            self.i = _double(self.text, self.i, self.word)
        elif char == "#" and not self.word.started:
            end = self.text.find("\n", self.i)
            self.i = len(self.text) if end < 0 else end
        elif char in _OPERATOR_CHARS and (op := _operator(self.text, self.i)) is not None:
            self.operator(op)
        elif char in " \t\r":
            self.flush()
            self.i += 1
        else:
            run = _PLAIN_RUN.match(self.text, self.i)
            text = run.group() if run else char
            self.word.add(text, quoted=False)
            self.i += len(text)


def tokenize(text: str) -> list[Token]:
    """Words and operators of ``text``; ValueError on an unterminated quote."""
    lexer = _Lexer(text)
    while lexer.i < len(text):
        lexer.step()
    lexer.flush()
    return lexer.tokens


def simple_commands(tokens: list[Token]) -> list[list[Token]]:
    """Words of each simple command, with redirections (and their targets) removed."""
    commands: list[list[Token]] = [[]]
    skip_next = False
    for token in tokens:
        if skip_next and not token.op:
            skip_next = False
            continue
        if token.op and token.text in SEPARATORS:
            commands.append([])
        elif token.op:
            skip_next = True
        else:
            commands[-1].append(token)
    return [command for command in commands if command]
