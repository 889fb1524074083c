"""Plain-text rendering of a host and its launch profiles for `profiles show`."""

from __future__ import annotations

import json
from pathlib import Path

from mtptui.config.models import HostConfig, LaunchProfile, SystemdServer
from mtptui.secrets import display_value


def _flag_text(name: str, value: object) -> str:
    if value is True:
        return f"--{name}"
    if isinstance(value, list):
        return f"--{name} " + " ".join(str(v) for v in value)
    if isinstance(value, dict):
        return f"--{name} {json.dumps(value)}"
    return f"--{name} {value}"


def render_profile(name: str, profile: LaunchProfile, known_good: bool) -> list[str]:
    title = f"profile {name}" + ("  [known-good]" if known_good else "")
    lines = [title, f"  model:  {profile.model_path}"]
    if profile.note:
        lines.append(f"  note:   {profile.note}")
    for var, value in profile.env.items():
        lines.append(f"  env:    {var}={display_value(var, value)}")
    for flag, flag_value in profile.flags.items():
        if flag_value is not False:
            lines.append(f"  flag:   {_flag_text(flag, display_value('--' + flag, flag_value))}")
    return lines


def render_host(host: HostConfig, path: Path) -> str:
    from mtptui.engines.registry import engine, launches

    server = host.server
    release = f"{engine(host.engine).label} {launches(host.engine).version(host)}"  # a vLLM host's is not SGLang's
    managed = f"systemd unit {server.unit}" if isinstance(server, SystemdServer) else f"process, log {server.log_file}"
    login = f"{host.ssh.user}@" if host.ssh and host.ssh.user else ""
    where = f"{login}{host.ssh.target}" if host.ssh else "this machine"
    lines = [
        f"host {host.name}  ({path})",
        f"  {host.description}" if host.description else None,
        f"  gpus:    {host.gpus}" if host.gpus else None,
        f"  reach:   {where}",
        f"  server:  {managed}; {release}",
        f"  api:     {host.api_url}",
        "",
    ]
    out = [line for line in lines if line is not None]
    for name, profile in host.profiles.items():
        out += render_profile(name, profile, name == host.known_good) + [""]
    return "\n".join(out)
