"""``--match``: Prometheus label matchers (``job="sglang",env=~"prod.*"``) for targets and every query."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from mtptui.errors import UserError

_NAME = r"[a-zA-Z_][a-zA-Z0-9_]*"
_MATCHER = re.compile(rf'\s*({_NAME})\s*(=~|!~|!=|=)\s*("(?:[^"\\]|\\.)*"|[^",]*?)\s*(?:,|$)')


@dataclass(frozen=True)
class Matcher:
    """One label matcher, as PromQL writes it."""

    name: str
    op: str
    value: str

    def promql(self) -> str:
        return f"{self.name}{self.op}{json.dumps(self.value)}"

    def matches(self, labels: dict[str, str]) -> bool:
        """Whether a target's labels pass (regexes anchored, as Prometheus's are)."""
        value = labels.get(self.name, "")
        if self.op in ("=", "!="):
            return (value == self.value) == (self.op == "=")
        return bool(re.fullmatch(self.value, value)) == (self.op == "=~")


def _value(text: str, source: str) -> str:
    if not text.startswith('"'):
        return text
    try:
        return str(json.loads(text))  # a text in double quotes is a JSON string or no JSON at all
    except json.JSONDecodeError:
        raise UserError(f"--match {source!r}: {text} is not a valid quoted value") from None


def _checked(matcher: Matcher, source: str) -> Matcher:
    if matcher.op in ("=~", "!~"):
        try:
            re.compile(matcher.value)
        except re.error as exc:
            raise UserError(f"--match {source!r}: {matcher.value!r} is not a regular expression ({exc})") from None
    return matcher


def parse_matchers(text: str | None) -> tuple[Matcher, ...]:
    """``job="sglang",env=~"prod.*"`` (braces optional) into matchers; a UserError names what is wrong."""
    source = (text or "").strip()
    body = source[1:-1] if source.startswith("{") and source.endswith("}") else source
    found: list[Matcher] = []
    position = 0
    while position < len(body) and body[position:].strip():
        part = _MATCHER.match(body, position)
        if part is None or part.end() == position:
            raise UserError(f"--match {source!r} is not a list of label matchers like job=\"sglang\",env=~\"prod.*\"")
        name, op, value = part.group(1), part.group(2), _value(part.group(3), source)
        found.append(_checked(Matcher(name, op, value), source))
        position = part.end()
    return tuple(found)


def selector(family: str, matchers: tuple[Matcher, ...], suffix: str = "", prefix: str = "sglang[:_]",
             picks: str = "") -> str:
    """A series selector for an engine's family under its prefix (a regex: SGLang's ``sglang:`` or ``sglang_``),
    ``picks`` a label matcher of the engine's own (``finished_reason="abort"``)."""
    parts = [f'__name__=~"{prefix}{family}{suffix}"', *([picks] if picks else []), *(m.promql() for m in matchers)]
    return "{" + ",".join(parts) + "}"
