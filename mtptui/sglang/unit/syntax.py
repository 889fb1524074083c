"""systemd's own quoting for ExecStart= and Environment= values (systemd.syntax(7), systemd.service(5)).

Words split at whitespace; double or single quotes group; C-style backslash escapes apply inside and
outside quotes; ``%%`` is a literal percent and ``%n``-style specifiers are expanded when known; in
ExecStart, ``$$`` is a literal dollar, ``${VAR}`` substitutes one word and ``$VAR`` alone splits into words.
"""

from __future__ import annotations

import re

_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "s": " ",
            "\\": "\\", '"': '"', "'": "'", ";": ";"}
_SPECIFIER = re.compile(r"%(.)")
_BRACED = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$\$")
_BARE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_SAFE = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")


class SyntaxProblem(ValueError):
    """A value systemd would refuse (unbalanced quotes, bad escape)."""


def expand_specifiers(value: str, specifiers: dict[str, str]) -> str:
    """``%%`` -> ``%``; known ``%X`` replaced; unknown ones kept as written."""
    return _SPECIFIER.sub(lambda m: "%" if m.group(1) == "%" else specifiers.get(m.group(1), m.group(0)), value)


def _escape(text: str, i: int) -> tuple[str, int]:
    """The character a backslash escape at ``text[i]`` stands for, and where reading goes on."""
    code = text[i + 1:i + 2]
    if code in _ESCAPES:
        return _ESCAPES[code], i + 2
    if code == "x" and re.fullmatch(r"[0-9a-fA-F]{2}", text[i + 2:i + 4]):
        return chr(int(text[i + 2:i + 4], 16)), i + 4
    if code == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", text[i + 2:i + 6]):
        return chr(int(text[i + 2:i + 6], 16)), i + 6
    if re.fullmatch(r"[0-7]{3}", text[i + 1:i + 4]):
        return chr(int(text[i + 1:i + 4], 8)), i + 4
    raise SyntaxProblem(f"invalid escape {text[i:i + 2]!r}")


def split_words(value: str) -> list[tuple[str, bool]]:
    """(word, escaped) pairs: systemd's unquoting; ``escaped`` marks a ``\\;`` or quoted ";" (not a separator)."""
    words: list[tuple[str, bool]] = []
    i, n = 0, len(value)
    while i < n:
        while i < n and value[i] in " \t\n":
            i += 1
        if i >= n:
            break
        chars: list[str] = []
        plain = True
        while i < n and value[i] not in " \t\n":
            char = value[i]
            if char in "\"'":
                end = i + 1
                while end < n and value[end] != char:
                    if value[end] == "\\":
                        piece, end = _escape(value, end)
                        chars.append(piece)
                        continue
                    chars.append(value[end])
                    end += 1
                if end >= n:
                    raise SyntaxProblem("unbalanced quoting")
                plain, i = False, end + 1
            elif char == "\\":
                piece, i = _escape(value, i)
                chars.append(piece)
                plain = False
            else:
                chars.append(char)
                i += 1
        words.append(("".join(chars), not plain))
    return words


def substitute_env(words: list[str], env: dict[str, str]) -> list[str]:
    """ExecStart's variable substitution; variables not in ``env`` stay as written."""
    out: list[str] = []
    for word in words:
        bare = _BARE.fullmatch(word)
        if bare and bare.group(1) in env:
            out.extend(env[bare.group(1)].split())
            continue

        def braced(match: re.Match[str]) -> str:
            if match.group(0) == "$$":
                return "$"
            return env.get(match.group(1), match.group(0))

        out.append(_BRACED.sub(braced, word))
    return out


def quote_word(word: str, exec_line: bool = True) -> str:
    """One word as systemd reads it back: ``%`` doubled, ``$`` doubled in ExecStart, quoted when needed."""
    text = word.replace("%", "%%")
    if exec_line:
        text = text.replace("$", "$$")
    if text and _SAFE.fullmatch(text):
        return text
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    escaped = "".join(c if c.isprintable() or c == " " else f"\\x{ord(c):02x}" for c in escaped)
    return f'"{escaped}"'
