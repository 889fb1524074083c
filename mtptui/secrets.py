"""Which values are secrets, and how they are shown: masked wherever mtptui prints or stores them.

An env var or flag whose name says it holds a secret (``HF_TOKEN``, ``OPENAI_API_KEY``, ``DB_PASSWORD``,
``--api-key``, ``--admin-api-key``, ``--ssl-keyfile-password``) is shown as ``••••(set, 40 chars)``: that it is
set and how long, never what. Comparisons (does a diff row differ?) use the real values; where two different
secrets would look alike, ``display_values`` tags them ``#1``, ``#2`` so a row still says it differs.

Names are read word by word (split at ``_`` and ``-``), not by substring, so ``TOKENIZERS_PARALLELISM`` and
``--max-total-tokens`` are not secrets while ``HF_TOKEN`` and ``APIKEY`` are.
"""

from __future__ import annotations

import copy
import os
import re
import shlex
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

if TYPE_CHECKING:
    from mtptui.engines.sglang.flags.flagset import FlagSet

SECRET_WORDS = ("TOKEN", "KEY", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "CREDENTIALS")
# A flag's words that say "secret" anywhere in its name; "token" only as its last word (--hf-token), because in
# SGLang's flags it is otherwise a count or a measure (--ds-heavy-token-num, --bucket-time-to-first-token).
FLAG_WORDS = frozenset({"KEY", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "CREDENTIALS", "APIKEY"})
MASK = "••••"
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.S)


def _words(name: str) -> list[str]:
    return [word for word in re.split(r"[-_]", name.lstrip("-").upper()) if word]


def is_secret_name(name: str) -> bool:
    """True for a name that looks like it holds a secret: an env var (``HF_TOKEN``) or a flag (``--api-key``).

    A server arg as ``/server_info`` names it (``api_key``) counts as a flag.
    """
    words = _words(name)
    if not words:
        return False
    if name.startswith("-") or name.islower():
        return bool(FLAG_WORDS & set(words)) or (words[-1] == "TOKEN" and words[-2:-1] not in (["FIRST"], ["PER"]))
    return any(word.endswith(SECRET_WORDS) or word.startswith("PASSW") for word in words)


def mask(value: object) -> str:
    """``••••(set, 40 chars)``: that a secret is set and its length, not what it is."""
    text = "" if value is None else str(value)
    return f"{MASK}(set, {len(text)} char{'' if len(text) == 1 else 's'})" if text else f"{MASK}(set, empty)"


def display_value(name: str, value: Any) -> Any:
    """``value`` as it may be shown or stored: masked when ``name`` looks secret, else unchanged (None stays None)."""
    if value is None or value is False or not is_secret_name(name):
        return value
    return mask(value)


def display_values(name: str, values: Iterable[Any],
                   keep: Callable[[Any], bool] = lambda value: False) -> tuple[Any, ...]:
    """The values of one row, masked when ``name`` looks secret; different real values stay different.

    ``keep(value)`` marks values that are not secrets themselves (e.g. ``"unset (default None)"``).
    """
    values = tuple(values)
    if not is_secret_name(name):
        return values
    shown = [v if v is None or keep(v) else mask(v) for v in values]
    secrets = list(dict.fromkeys(v for v, s in zip(values, shown) if s is not v))
    if len({s for v, s in zip(values, shown) if s is not v}) < len(secrets):
        tags = {secret: f" #{number}" for number, secret in enumerate(secrets, start=1)}
        shown = [s if s is v else s + tags[v] for v, s in zip(values, shown)]
    return tuple(shown)


def display_env(env: dict[str, str]) -> dict[str, str]:
    return {name: display_value(name, value) for name, value in env.items()}


def mask_argv(argv: Iterable[str]) -> list[str]:
    """A command's words with secrets masked: ``--api-key X`` / ``--api-key=X`` and ``HF_TOKEN=x`` assignments."""
    out: list[str] = []
    hide_next = False
    for word in argv:
        word = str(word)
        if hide_next:
            out.append(mask(word))
            hide_next = False
        elif word.startswith("--") and "=" in word and is_secret_name(word.split("=", 1)[0]):
            flag, value = word.split("=", 1)
            out.append(f"{flag}={mask(value)}")
        elif word.startswith("--") and is_secret_name(word):
            out.append(word)
            hide_next = True
        elif (assignment := _ASSIGNMENT.fullmatch(word)) and is_secret_name(assignment.group(1)):
            out.append(f"{assignment.group(1)}={mask(assignment.group(2))}")
        else:
            out.append(word)
    return out


def mask_command_line(line: str | None) -> str | None:
    """A shell command line with its secrets masked (unchanged when it has none, or cannot be split)."""
    if not line:
        return line
    try:
        words = shlex.split(line)
    except ValueError:
        return re.sub(r"(--[a-z0-9-]*(?:key|token|secret|password)[= ]+)\S+", lambda m: m.group(1) + MASK, line)
    masked = mask_argv(words)
    return line if masked == words else shlex.join(masked)


_ASSIGNED = re.compile(r"""(?P<name>-{0,2}[A-Za-z_][A-Za-z0-9_-]*)=(?P<value>'[^']*'|"[^"]*"|[^\s,)'"]+)""")
_SPACED = re.compile(r"(?P<name>--[a-z0-9-]+)(?P<gap>\s+)(?P<value>[^\s\-]\S*)")
_UNSET = frozenset({"None", "''", '""', "null"})


def _masked_assignment(match: re.Match[str]) -> str:
    name, value = match.group("name"), match.group("value")
    if not is_secret_name(name) or value in _UNSET:
        return match.group()
    quote = value[0] if value[0] in "'\"" else ""
    return f"{name}={quote}{mask(value[1:-1] if quote else value)}{quote}"


def _masked_spaced(match: re.Match[str]) -> str:
    if not is_secret_name(match.group("name")):
        return match.group()
    return f"{match.group('name')}{match.group('gap')}{mask(match.group('value'))}"


def mask_text(text: str) -> str:
    """Free text (a log line, a message) with the value of every secret-named assignment masked:
    ``server_args=ServerArgs(..., api_key='sk-...')``, ``HF_TOKEN=hf_...``, ``--api-key=...`` and ``--api-key ...``.
    An unset value (``None``) stays: that it is unset is no secret."""
    return _SPACED.sub(_masked_spaced, _ASSIGNED.sub(_masked_assignment, text))


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every occurrence of each secret value masked (an error sentence that quotes a header, say)."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, mask(secret))
    return text


def scrub_json(value: Any, secrets: Iterable[str]) -> Any:
    """A JSON value with every string scrubbed of the secret values (the net under the masking by name)."""
    secrets = [secret for secret in secrets if secret]
    if not secrets:
        return value
    if isinstance(value, str):
        return scrub(value, secrets)
    if isinstance(value, dict):
        return {key: scrub_json(item, secrets) for key, item in value.items()}
    if isinstance(value, list):
        return [scrub_json(item, secrets) for item in value]
    return value


def secret_values(flagset: FlagSet | None) -> list[str]:
    """The values of a launch's secret-named env vars and flags (what no output may hold)."""
    if flagset is None:
        return []
    values = [value for name, value in flagset.env.items() if is_secret_name(name)]
    values += [value for name, value in flagset.flags.items() if is_secret_name(name) and isinstance(value, str)]
    return [str(value) for value in values if value and len(str(value)) >= 4]


def split_url_credentials(url: str) -> tuple[str, str | None, str | None]:
    """(the URL without ``user:password@``, user, password): a URL is shown and stored only without them."""
    from urllib.parse import unquote, urlsplit, urlunsplit

    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, None, None
    userinfo, _, hostport = parts.netloc.rpartition("@")
    user, colon, password = userinfo.partition(":")
    return (urlunsplit(parts._replace(netloc=hostport)), unquote(user) or None,
            unquote(password) if colon else None)


def mask_flagset(flagset: FlagSet) -> FlagSet:
    """A copy of a FlagSet whose secret env values and flag values are masked (for showing what will run)."""
    shown = copy.copy(flagset)
    shown.flags = {name: display_value(name, value) for name, value in flagset.flags.items()}
    shown.env = display_env(flagset.env)
    words = getattr(flagset, "args", None)  # a launch that keeps its option words (vLLM's) shows them masked too
    if isinstance(words, list):
        vars(shown)["args"] = mask_argv(words)
    return shown


def private_dir(path: Path) -> None:
    """mtptui's own folder (e.g. the history's): created 0700, and made 0700 when it was more open."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if path.stat().st_mode & 0o077:
        os.chmod(path, 0o700)


def open_private(path: str | os.PathLike[str], flags: int) -> int:
    """A file descriptor for ``path`` opened with ``flags``, the file created 0600 or made 0600 (results and
    history hold server launch details; a secret that slipped past the masking stays the user's)."""
    fd = os.open(path, flags | os.O_CREAT, 0o600)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISREG(mode) and mode & 0o077:  # a regular file: never a terminal or a pipe named by the user
            os.fchmod(fd, 0o600)
    except OSError:
        os.close(fd)
        raise
    return fd
