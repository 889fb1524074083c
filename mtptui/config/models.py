"""Pydantic models for a host profile and its launch profiles (no Textual, no I/O)."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from mtptui.engines.names import DEFAULT as DEFAULT_ENGINE, NAMES as ENGINE_NAMES
from mtptui.config.names import host_name, user_name
from mtptui.engines.sglang.versions import DEFAULT_VERSION

FlagValue = Union[bool, int, float, str, list[str], dict[str, Any]]
"""A flag's value in a profile; a table is a JSON-object flag written as TOML (vLLM's speculative-config)."""
"""A launch flag value as written in TOML: true for store_true flags, lists for nargs='+'."""

ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
FLAG_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")
# Seconds of log time a slowdown must last before the health line turns red (a host file may say otherwise).
HEALTH_LASTS_S = 30.0


def _env_name(name: str) -> str:
    """A POSIX variable name: anything else could reach `env` or a unit as something other than a name."""
    if not ENV_NAME.fullmatch(name):
        raise ValueError(f"env name {name!r} is not a variable name (letters, digits and _, not starting with a "
                         f"digit)")
    return name


def _flag_name(name: str) -> str:
    """A long option name without its leading "--" (lower-case letters, digits and -): the shape of every engine's
    flags; whether the engine knows the flag is its own lint's to say."""
    if not FLAG_NAME.fullmatch(name):
        hint = ' (write it without the leading "--")' if FLAG_NAME.fullmatch(name.lstrip("-")) else ""
        raise ValueError(f"flag name {name!r} is not a long option name (a-z, 0-9 and -, not starting with "
                         f"-){hint}")
    return name


def _engine_name(name: str) -> str:
    if name not in ENGINE_NAMES:
        raise ValueError(f"engine {name!r} is not one mtptui knows ({', '.join(ENGINE_NAMES)})")
    return name


EnvName = Annotated[str, AfterValidator(_env_name)]
FlagName = Annotated[str, AfterValidator(_flag_name)]
HostName = Annotated[str, AfterValidator(host_name)]
UserName = Annotated[str, AfterValidator(user_name)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class SSHConfig(_Strict):
    """How to reach the GPU host. Secrets never live here: keys come from the agent or a file path."""

    target: HostName = Field(description="Host name, address or ~/.ssh/config alias.")
    port: int | None = Field(default=None, ge=1, le=65535, description="SSH port; None uses ~/.ssh/config or 22.")
    user: UserName | None = Field(default=None, description="Login user; None uses ~/.ssh/config or the local user.")
    identity_file: str | None = Field(default=None, description="Path of a private key; the agent is tried too.")
    known_hosts: Literal["strict", "ask"] = Field(
        default="strict",
        description="strict refuses unknown or changed host keys; ask lets the user accept an unknown key explicitly.",
    )
    known_hosts_file: str | None = Field(default=None, description="known_hosts file; None uses ~/.ssh/known_hosts.")
    keepalive_s: int = Field(default=15, ge=0, description="Keepalive interval in seconds (0 disables).")


class SystemdServer(_Strict):
    """The server runs as a systemd unit."""

    manager: Literal["systemd"] = "systemd"
    unit: str = Field(description="Unit name, e.g. sglang-qwen.service.")
    command_prefix: list[str] = Field(default_factory=list, description='Prefix for systemctl, e.g. ["sudo"].')


class ProcessServer(_Strict):
    """The server was started by hand (nohup); mtptui finds it by pid file or command line."""

    manager: Literal["process"] = "process"
    launch_command: str | None = Field(default=None, description="Command that starts the server, if not a profile.")
    pid_file: str | None = Field(default=None, description="File holding the server's pid.")
    log_file: str = Field(description="Where the server's stdout and stderr go.")
    workdir: str | None = Field(default=None, description="Working directory for a relaunch.")
    unit_file: str | None = Field(default=None, description=(
        "A systemd unit file on the host that ran this server before it was started by hand (compared as the "
        "configured side when launch_command is unset)."))
    unit: str | None = Field(default=None, description=(
        "The systemd unit this hand-started server replaced, e.g. sglang-qwen.service: `mtptui restart "
        "--to-unit` hands the server back to it, and the restart dialog offers it (u)."))
    command_prefix: list[str] = Field(default_factory=list, description=(
        'Prefix for systemctl of that unit, e.g. ["sudo", "-n"] (the hand-started server itself needs none).'))


ServerConfig = Annotated[Union[SystemdServer, ProcessServer], Field(discriminator="manager")]


class LogSource(_Strict):
    """Where the server log is read from."""

    kind: Literal["journal", "file"] = Field(description="journal follows the unit's journal; file tails a path.")
    path: str | None = Field(default=None, description="Log file path when kind is file.")

    @model_validator(mode="after")
    def _file_needs_path(self) -> "LogSource":
        if self.kind == "file" and not self.path:
            raise ValueError("a file log source needs a path")
        return self


class LaunchProfile(_Strict):
    """One way to launch the host's engine: model, flags, environment and a note."""

    model_path: str = Field(description="The served model: SGLang's --model-path, vLLM's --model.")
    flags: dict[FlagName, FlagValue] = Field(
        default_factory=dict,
        description='The engine\'s flags by long name without "--", e.g. "speculative-num-steps" = 3; a table '
                    'is a JSON object flag (speculative-config = { method = "mtp", num_speculative_tokens = 3 }).',
    )
    env: dict[EnvName, str] = Field(
        default_factory=dict, description="Environment variables, e.g. SGLANG_ENABLE_SPEC_V2."
    )
    python: str = Field(default="python3", description="Interpreter used to render `python3 -m sglang.launch_server`.")
    note: str = Field(default="", description="Why this profile exists.")
    engine: Annotated[str, AfterValidator(_engine_name)] | None = Field(default=None, description=(
        'The engine this profile launches, when it is not the host\'s ("vllm" on an SGLang host): the host names '
        "where that engine's server runs in [engines.NAME]."))


GATEWAY_SECRET_KEYS = ("token", "bearer_token", "api_key", "password")


def _http_url(url: str) -> str:
    """An http(s) URL with a host, and no credentials, query or fragment in it."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        raise ValueError(f"{url!r} is not a URL like http://10.0.0.2:30080") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{url!r} is not an http(s) URL like http://10.0.0.2:30080")
    if parts.username is not None or parts.password is not None:
        raise ValueError("credentials are never written in the URL: name a bearer_token_file or bearer_token_env")
    if parts.query or parts.fragment:
        raise ValueError(f"{url!r} has a query or fragment: give the gateway's base URL")
    return url.strip().rstrip("/")


HttpUrl = Annotated[str, AfterValidator(_http_url)]


class GatewayConfig(_Strict):
    """The SGLang gateway (SMG) this host's server sits behind. Its token is read from a file or an environment
    variable, never written here."""

    url: HttpUrl = Field(description="The gateway's base URL as the GPU host sees it, e.g. http://10.0.0.2:30080.")
    worker_url: HttpUrl | None = Field(default=None, description=(
        "The URL the gateway knows this host's server by; found in the gateway's worker list when not given."))
    bearer_token_file: str | None = Field(default=None, description="File holding the gateway's admin token.")
    bearer_token_env: EnvName | None = Field(default=None, description="Environment variable holding it.")

    @model_validator(mode="before")
    @classmethod
    def _no_secret_values(cls, data: object) -> object:
        if isinstance(data, dict):
            for key in GATEWAY_SECRET_KEYS:
                if key in data:
                    raise ValueError(f"{key!r} is never stored in the host file: name where to read the token "
                                     f"with bearer_token_file or bearer_token_env")
        return data

    @model_validator(mode="after")
    def _one_way(self) -> "GatewayConfig":
        if self.bearer_token_file and self.bearer_token_env:
            raise ValueError("name either bearer_token_file or bearer_token_env, not both")
        return self


class EngineServer(_Strict):
    """Where another engine's server runs on the host (its own unit or process, log and API): what a tune across
    engines stops and starts instead of the host's own server."""

    api_url: str = Field(description="That server's OpenAI-compatible API as the GPU host sees it.")
    server: ServerConfig
    log: LogSource
    version: str | None = Field(default=None, description="The engine's release whose rules apply (None: default).")


class HostConfig(_Strict):
    """A GPU host running SGLang, and the launch profiles known for it."""

    name: str = Field(description="Short name used on the command line: `mtptui NAME`.")
    description: str = ""
    gpus: str = Field(default="", description="Human description of the GPUs, e.g. 2x NVIDIA A6000 48 GB.")
    gpu_memory_gb: float | None = Field(default=None, gt=0, description="Memory per GPU.")
    engine: Annotated[str, AfterValidator(_engine_name)] = Field(
        default=DEFAULT_ENGINE, description='The inference engine the host runs: "sglang" or "vllm".')
    sglang_version: str = Field(default=DEFAULT_VERSION, description="SGLang release the host runs (flag rules).")
    api_url: str = Field(description="OpenAI-compatible API base, e.g. http://10.0.0.5:30000.")
    ssh: SSHConfig | None = Field(default=None, description="How to reach the host; None means this machine.")
    server: ServerConfig
    log: LogSource
    known_good: str | None = Field(default=None, description="Name of the profile the one-key restore uses.")
    prometheus_instance: str | None = Field(
        default=None, description='The `instance` label Prometheus gives this server, e.g. "10.0.0.5:30000" '
                                  "(mtptui fleet opens this host's dashboard from that row).")
    gateway: GatewayConfig | None = Field(default=None, description="The gateway in front of this host's server.")
    health_lasts_s: float = Field(
        default=HEALTH_LASTS_S, ge=6, le=3600,
        description="Seconds of the log's own time a slowdown or an acceptance drop must last before the health "
                    "line turns red: shorter on a canary host that must say so soon, longer on a bursty one.")
    profiles: dict[str, LaunchProfile] = Field(default_factory=dict)
    engines: dict[Annotated[str, AfterValidator(_engine_name)], EngineServer] = Field(
        default_factory=dict, description="Other engines the host can run instead of its own (a tune across "
                                          "engines switches between them), by engine name.")

    @model_validator(mode="after")
    def _known_good_exists(self) -> "HostConfig":
        if self.known_good is not None and self.known_good not in self.profiles:
            raise ValueError(f"known_good names profile {self.known_good!r}, which is not defined")
        if self.known_good is not None and self.engine_of(self.known_good) != self.engine:
            raise ValueError(f"known_good names profile {self.known_good!r}, which launches another engine")
        return self

    @model_validator(mode="after")
    def _engines_known(self) -> "HostConfig":
        if self.engine in self.engines:
            raise ValueError(f"[engines.{self.engine}] names the host's own engine: its server is [server]")
        for name, profile in self.profiles.items():
            if profile.engine not in (None, self.engine) and profile.engine not in self.engines:
                raise ValueError(f"profile {name!r} launches {profile.engine}, but the host names no "
                                 f"[engines.{profile.engine}] (where that server runs)")
        return self

    def engine_of(self, profile: str) -> str:
        """The engine the named profile launches (the host's own unless the profile says another)."""
        return self.profile(profile).engine or self.engine

    def for_engine(self, name: str) -> "HostConfig":
        """The host as seen running ``name``: that engine's server, log and API, and only its profiles (the host
        itself for its own engine)."""
        from mtptui.errors import ConfigError

        if name == self.engine:
            return self
        if name not in self.engines:
            raise ConfigError(f"host {self.name!r} names no [engines.{name}]: where would its server run?")
        other = self.engines[name]
        profiles = {key: profile for key, profile in self.profiles.items() if profile.engine == name}
        version = {"sglang_version": other.version} if other.version and name == "sglang" else {}
        return self.model_copy(update={"engine": name, "api_url": other.api_url, "server": other.server,
                                       "log": other.log, "known_good": None, "gateway": None, "profiles": profiles,
                                       "engines": {}, **version})

    def own_profiles(self) -> dict[str, LaunchProfile]:
        """The profiles the host's own server can launch, by name: a restart, a diff or a pick offers these (another
        engine's profiles are for a tune across engines, which switches servers)."""
        return {name: profile for name, profile in self.profiles.items() if profile.engine in (None, self.engine)}

    def own_profile(self, name: str) -> LaunchProfile:
        """The named profile when the host's own server launches it; a ConfigError when it is unknown or another
        engine's (that server is another unit, which only a tune across engines switches to)."""
        from mtptui.errors import ConfigError

        profile = self.profile(name)
        if name not in self.own_profiles():
            raise ConfigError(f"profile {name!r} launches {profile.engine}, but {self.name}'s server is {self.engine}: "
                              f"only a tune across engines (mtptui tune {self.name} --arms ...) runs another "
                              f"engine's profile; restart, diff and lint take the host's own "
                              f"({', '.join(sorted(self.own_profiles())) or 'none'})")
        return profile

    def default_profile(self) -> str | None:
        """The profile meant when none is named (every command and screen asks here): the known-good one, else
        the host's only profile; None when there is a choice to make, which mtptui never guesses."""
        if self.known_good is not None:
            return self.known_good
        own = list(self.own_profiles())
        return own[0] if len(own) == 1 else None

    def profile(self, name: str) -> LaunchProfile:
        """The named profile, or a ConfigError listing the ones that exist."""
        from mtptui.errors import ConfigError

        try:
            return self.profiles[name]
        except KeyError:
            known = ", ".join(sorted(self.profiles)) or "none"
            raise ConfigError(f"host {self.name!r} has no profile {name!r} (profiles: {known})") from None
