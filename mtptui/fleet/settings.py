"""The fleet's settings: ``[prometheus]`` in ``$XDG_CONFIG_HOME/mtptui/fleet.toml``, command-line options win.

    [prometheus]
    url = "http://prometheus.internal:9090"
    match = 'job="sglang"'
    window = "1m"               # rate window of every figure
    history = "1h"              # each instance's own past, for the health flag
    refresh_s = 5
    recorded = false            # true: read the series of the rules `mtptui fleet --rules` prints
    username = "mtptui"         # basic auth; the password from a file or an environment variable
    password_file = "~/.config/mtptui/prometheus.pass"
    # bearer_token_env = "PROMETHEUS_TOKEN"   (or bearer_token_file)

A password or token is never written in the file: only where to read it.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from mtptui.config.files import HOST_FILE_LIMIT, read_bounded
from mtptui.config.paths import config_home
from mtptui.errors import ConfigError, UserError
from mtptui.fleet.durations import parse_duration
from mtptui.fleet.matchers import Matcher, parse_matchers
from mtptui.secrets import mask, split_url_credentials

if TYPE_CHECKING:
    from mtptui.fleet.gateway_source import GatewaySource

SECRET_KEYS = ("password", "bearer_token", "token")


class PrometheusConfig(BaseModel):
    """``[prometheus]`` of fleet.toml."""

    model_config = ConfigDict(extra="forbid")

    url: str | None = Field(default=None, description="Base URL of the Prometheus HTTP API.")
    match: str = Field(default="", description='Label matchers every target and query must pass, e.g. job="sglang".')
    window: str = Field(default="1m", description="Rate window of the figures (at least 4 scrape intervals).")
    history: str = Field(default="1h", description="How far back an instance's own history goes (health flag).")
    refresh_s: float = Field(default=5.0, gt=0, description="Seconds between refreshes of the fleet screen.")
    recorded: bool = Field(default=False, description="Read the series of `mtptui fleet --rules` recording rules.")
    username: str | None = Field(default=None, description="Basic-auth user.")
    password_file: str | None = Field(default=None, description="File holding the basic-auth password.")
    password_env: str | None = Field(default=None, description="Environment variable holding it.")
    bearer_token_file: str | None = Field(default=None, description="File holding a bearer token.")
    bearer_token_env: str | None = Field(default=None, description="Environment variable holding it.")

    @model_validator(mode="before")
    @classmethod
    def _no_secret_values(cls, data: Any) -> Any:
        for key in SECRET_KEYS:
            if isinstance(data, dict) and key in data:
                instead = "password_file or password_env" if key == "password" else \
                    "bearer_token_file or bearer_token_env"
                raise ValueError(f"{key!r} is never stored in the file: name where to read it with {instead}")
        return data

    @model_validator(mode="after")
    def _one_way_each(self) -> "PrometheusConfig":
        if self.password_file and self.password_env or self.bearer_token_file and self.bearer_token_env:
            raise ValueError("name either the file or the environment variable of a secret, not both")
        if (self.password_file or self.password_env) and not self.username:
            raise ValueError("a password needs a username (basic auth)")
        if self.username and (self.bearer_token_file or self.bearer_token_env):
            raise ValueError("use basic auth or a bearer token, not both")
        return self


@dataclass(frozen=True)
class Auth:
    """Credentials for Prometheus, read when the fleet starts (never stored)."""

    username: str | None = None
    password: str | None = None
    bearer_token: str | None = None


@dataclass(frozen=True)
class FleetSettings:
    """What a fleet view reads, resolved: URL, matchers, windows in seconds, credentials."""

    url: str | None  # None: no Prometheus, the fleet is the gateway's workers
    matchers: tuple[Matcher, ...]
    window_s: float
    history_s: float
    refresh_s: float
    auth: Auth
    recorded: bool
    source: str  # where the URL came from: "--prometheus" or the file
    gateway: "GatewaySource | None" = None  # workers from a gateway too (mtptui.fleet.gateway_source)


def fleet_config_path() -> Path:
    return config_home() / "fleet.toml"


def read_config(path: Path | None = None) -> PrometheusConfig:
    """``[prometheus]`` of fleet.toml; an absent file is the defaults, a broken one a ConfigError."""
    path = path or fleet_config_path()
    if not path.exists():
        return PrometheusConfig()
    try:
        data = tomllib.loads(read_bounded(path, "fleet file", HOST_FILE_LIMIT).decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    unknown = sorted(set(data) - {"prometheus", "gateway"})
    if unknown:
        raise ConfigError(f"{path}: unknown table {unknown[0]!r} (the fleet reads [prometheus] and [gateway])")
    try:
        return PrometheusConfig.model_validate(data.get("prometheus", {}))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        message = "unknown field" if first["type"] == "extra_forbidden" else first["msg"].removeprefix("Value error, ")
        raise ConfigError(f"{path}: [prometheus]{' ' + where if where else ''}: {message}") from None


def _secret(file: str | None, env: str | None, what: str) -> str | None:
    """A secret from the file or the environment variable the config names (whitespace around it dropped)."""
    import os

    if file:
        path = Path(file).expanduser()
        text = read_bounded(path, f"{what} file", 64 * 1024).decode("utf-8", errors="replace").strip()
        if not text:
            raise ConfigError(f"{path}: the {what} file is empty")
        return text
    if env:
        value = os.environ.get(env, "").strip()
        if not value:
            raise ConfigError(f"the environment variable {env}, named for the Prometheus {what}, is not set")
        return value
    return None


HEADER_TOKEN = re.compile(r"[\x21-\x7e]+")
"""What an Authorization header can carry after "Bearer ": visible ASCII, no spaces or controls."""


def read_auth(config: PrometheusConfig) -> Auth:
    password = _secret(config.password_file, config.password_env, "password")
    token = _secret(config.bearer_token_file, config.bearer_token_env, "bearer token")
    if token is not None and not HEADER_TOKEN.fullmatch(token):
        where = config.bearer_token_file or f"${config.bearer_token_env}"
        raise ConfigError(f"the Prometheus bearer token in {where} ({mask(token)}) holds characters an HTTP "
                          f"header cannot carry (spaces, control or non-ASCII characters)")
    return Auth(config.username, password, token)


def check_url(url: str, source: str) -> tuple[str, str | None, str | None]:
    """(the URL without credentials, user, password): credentials in a URL are taken as basic auth and never
    shown (a password in ``--prometheus`` reached the fleet JSON, its errors and the screen's header)."""
    from urllib.parse import urlsplit

    clean, user, password = split_url_credentials(url.strip())
    parts = urlsplit(clean)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UserError(f"{source} {clean!r} is not an http(s) URL like http://prometheus:9090")
    return clean.rstrip("/"), user, password


def _auth(config: PrometheusConfig, user: str | None, password: str | None) -> Auth:
    """The credentials: fleet.toml's, or the URL's user and password (not both)."""
    if user is None:
        return read_auth(config)
    if config.username or config.bearer_token_file or config.bearer_token_env:
        raise ConfigError("the Prometheus URL holds credentials and fleet.toml names some too: keep one of them")
    return Auth(user, password)


def load_settings(*, url: str | None = None, match: str | None = None, window: str | None = None,
                  history: str | None = None, recorded: bool | None = None,
                  path: Path | None = None, gateway: str | None = None) -> FleetSettings:
    """fleet.toml's ``[prometheus]`` (and ``[gateway]``) with the command line's values on top, checked and with
    credentials read."""
    from mtptui.fleet.gateway_source import read_gateway

    config = read_config(path)
    where = str(path or fleet_config_path())
    chosen = url or config.url
    workers = read_gateway(path or fleet_config_path(), gateway)
    if not chosen and workers is None:
        raise ConfigError(f"no Prometheus to read: pass --prometheus URL or set url under [prometheus] in {where} "
                          f"(or read a gateway's workers: --gateway URL, or url under [gateway])")
    source = "--prometheus" if url else f"url in {where}"
    clean, user, password = check_url(chosen, source) if chosen else (None, None, None)
    return FleetSettings(
        url=clean, gateway=workers, matchers=parse_matchers(config.match if match is None else match),
        window_s=parse_duration(window or config.window, "--window"),
        history_s=parse_duration(history or config.history, "--history"),
        refresh_s=config.refresh_s, auth=_auth(config, user, password),
        recorded=config.recorded if recorded is None else recorded, source=source)


def rules_for(match: str | None = None, window: str | None = None, path: Path | None = None) -> str:
    """The recording rules of ``mtptui fleet --rules`` for fleet.toml's match and window (or these)."""
    from mtptui.fleet.promql import rules_yaml

    config = read_config(path)
    return rules_yaml(parse_matchers(config.match if match is None else match),
                      parse_duration(window or config.window, "--window"))
