"""systemd's own quoting for ExecStart= and Environment= values (systemd.syntax(7), systemd.service(5)).

Words split at whitespace; double or single quotes group; C-style backslash escapes apply inside and
outside quotes; ``%%`` is a literal percent and ``%n``-style specifiers are expanded when known; in
ExecStart, ``$$`` is a literal dollar, ``${VAR}`` substitutes one word and ``$VAR`` alone splits into words.
"""

from __future__ import annotations

import re

from mtptui.engines.sglang.flags.errors import FlagError

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


def _byte(value: int) -> str:
    """A byte escape (``\\xHH``, ``\\OOO``) as systemd reads it: a byte, so >= 0x80 joins a UTF-8 sequence."""
    return chr(value) if value < 0x80 else chr(0xDC00 + value)  # surrogateescape, decoded by _bytes_joined


def _bytes_joined(text: str) -> str:
    """Byte escapes of one word decoded together as UTF-8 (``\\xc2\\xa0`` is NBSP); invalid bytes stay escaped."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")


def _escape(text: str, i: int) -> tuple[str, int]:
    """The character a backslash escape at ``text[i]`` stands for, and where reading goes on."""
    code = text[i + 1:i + 2]
    if code in _ESCAPES:
        return _ESCAPES[code], i + 2
    if code == "x" and re.fullmatch(r"[0-9a-fA-F]{2}", text[i + 2:i + 4]):
        return _byte(int(text[i + 2:i + 4], 16)), i + 4
    for letter, digits in (("u", 4), ("U", 8)):
        if code == letter and re.fullmatch(f"[0-9a-fA-F]{{{digits}}}", text[i + 2:i + 2 + digits]):
            return chr(int(text[i + 2:i + 2 + digits], 16)), i + 2 + digits
    if re.fullmatch(r"[0-7]{3}", text[i + 1:i + 4]):
        return _byte(int(text[i + 1:i + 4], 8)), i + 4
    raise SyntaxProblem(f"invalid escape {text[i:i + 2]!r}")


def _quoted(value: str, i: int, chars: list[str]) -> int:
    """Read a quoted part starting at ``value[i]`` into ``chars``; where reading goes on."""
    quote, end = value[i], i + 1
    while end < len(value) and value[end] != quote:
        if value[end] == "\\":
            piece, end = _escape(value, end)
            chars.append(piece)
            continue
        chars.append(value[end])
        end += 1
    if end >= len(value):
        raise SyntaxProblem("unbalanced quoting")
    return end + 1


def _word(value: str, i: int) -> tuple[str, bool, int]:
    """One word from ``value[i]``: (text, whether any of it was quoted or escaped, where reading goes on)."""
    chars: list[str] = []
    plain = True
    while i < len(value) and value[i] not in " \t\n":
        if value[i] in "\"'":
            i, plain = _quoted(value, i, chars), False
        elif value[i] == "\\":
            piece, i = _escape(value, i)
            chars.append(piece)
            plain = False
        else:
            chars.append(value[i])
            i += 1
    return _bytes_joined("".join(chars)), not plain, i


def split_words(value: str) -> list[tuple[str, bool]]:
    """(word, escaped) pairs: systemd's unquoting; ``escaped`` marks a ``\\;`` or quoted ";" (not a separator)."""
    words: list[tuple[str, bool]] = []
    i = 0
    while i < len(value):
        if value[i] in " \t\n":
            i += 1
            continue
        word, escaped, i = _word(value, i)
        words.append((word, escaped))
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


def unrepresentable(text: str) -> str | None:
    """The first character systemd cannot hold in a unit (NUL, a surrogate, a Unicode noncharacter), or None.

    systemd refuses a NUL escape, and reads neither raw bytes nor ``\\u`` escapes of the others as valid UTF-8.
    """
    for char in text:
        code = ord(char)
        if code == 0 or 0xD800 <= code <= 0xDFFF or 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE:
            return char
    return None


def _escaped_char(char: str) -> str:
    """A non-printable character the way systemd unescapes it: ``\\x`` is one byte, so non-ASCII takes ``\\u``."""
    code = ord(char)
    if code < 0x80:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def quote_word(word: str, exec_line: bool = True) -> str:
    """One word as systemd reads it back: ``%`` doubled, ``$`` doubled in ExecStart, quoted when needed.

    Printable characters are written as they are, every other one as an escape systemd reads back exactly; a
    character systemd cannot hold at all is a FlagError (one sentence), not a unit systemd would mangle.
    """
    if (bad := unrepresentable(word)) is not None:
        shown = word if len(word) <= 60 else word[:60] + "..."
        raise FlagError(f"systemd cannot hold U+{ord(bad):04X} in a unit file, so mtptui will not write {shown!r} "
                        f"into one")
    text = word.replace("%", "%%")
    if exec_line:
        text = text.replace("$", "$$")
    if text and _SAFE.fullmatch(text):
        return text
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    escaped = "".join(c if c.isprintable() or c == " " else _escaped_char(c) for c in escaped)
    return f'"{escaped}"'
