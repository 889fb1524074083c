"""What the lab machine's image holds beyond this machine's root: written into its overlay before it boots.

- ``mtplab.target``, the boot target: journald (pulled in by sysinit.target like on any Debian host), sshd
  (Debian's own ``ssh.service``) and nothing else of the image (postgresql, prometheus, ... stay off).
- ``/etc/tmpfiles.d/tmp.conf`` masked: the container's /tmp is a tmpfs of its own anyway (systemd-nspawn mounts
  one), and the directories bound into it are never cleaned.
- sshd: its own host key, the operator's key for ``root`` and for the non-root ``OPERATOR`` account, the
  session environment (``SetEnv``: the stand-in ``sglang`` package on PYTHONPATH, the host's PATH).
- systemd's ``DefaultEnvironment=``: what the stand-in ``sglang`` package needs in a unit (on a GPU host SGLang
  is installed in the unit's Python; here the demo's stand-in package is found through PYTHONPATH).
- the ``OPERATOR`` account (uid 1500, home /home/OPERATOR); its sudoers rule is the tests' to write
  (``SUDOERS``), so a test can run it with and without.
- a machine id of its own (the journal lives under it).
- every directory on the way to the interpreter, the checkout and the test cache searchable by every account
  (this machine's Python may live under /root, e.g. pyenv), so the operator account runs the same Python.
"""

from __future__ import annotations

import os
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

OPERATOR = "mtpops"  # the non-root SSH user of the lab host
OPERATOR_UID = 1500
TARGET_UNIT = """[Unit]
Description=mtptui lab host (journald, sshd and the lab's units)
Wants=ssh.service
After=ssh.service
AllowIsolate=yes
"""
HOST_KEY = "/etc/ssh/mtplab_host_ed25519_key"
AUTHORIZED = "/etc/ssh/mtplab_authorized_keys"
SUDOERS = "/etc/sudoers.d/mtplab-operator"


def _quote_env(env: dict[str, str]) -> str:
    return " ".join(f'"{key}={value}"' for key, value in env.items())


@dataclass(frozen=True)
class Image:
    """The lab's additions to the image: keys, environments, the machine id."""

    machine_id: str
    host_key: Path  # a private key made by ssh-keygen on this machine (its .pub beside it)
    client_pub: str  # the operator's public key line
    session_env: dict[str, str]  # what an SSH session sees (sshd's SetEnv)
    unit_env: dict[str, str]  # what every unit sees (systemd's DefaultEnvironment=)
    reachable: list[Path] = field(default_factory=list)  # paths every account must reach (the Python, the checkout)

    def write(self, root: Path) -> None:
        """Write the additions into ``root`` (the mounted overlay: the machine's files stay as they are)."""
        files = {
            "etc/machine-id": self.machine_id + "\n",
            "usr/local/lib/systemd/system/mtplab.target": TARGET_UNIT,
            "etc/systemd/system.conf.d/mtplab.conf": f"[Manager]\nDefaultEnvironment={_quote_env(self.unit_env)}\n",
            "etc/ssh/sshd_config": self.sshd_config(),
            f"{AUTHORIZED.lstrip('/')}/root": self.client_pub + "\n",
            f"{AUTHORIZED.lstrip('/')}/{OPERATOR}": self.client_pub + "\n",
        }
        for name, text in files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            path.chmod(0o644)
        _mask(root / "etc/tmpfiles.d/tmp.conf")
        key = root / HOST_KEY.lstrip("/")
        key.write_bytes(self.host_key.read_bytes())
        key.chmod(0o600)
        key.with_suffix(".pub").write_bytes(self.host_key.with_suffix(".pub").read_bytes())
        _add_operator(root)
        for path in self.reachable:
            _searchable(root, path)

    def sshd_config(self) -> str:
        lines = ["Port 22", "ListenAddress 127.0.0.1", f"HostKey {HOST_KEY}", f"AuthorizedKeysFile {AUTHORIZED}/%u",
                 "UsePAM no", "PermitRootLogin prohibit-password", "PubkeyAuthentication yes",
                 "PasswordAuthentication no", "KbdInteractiveAuthentication no", "MaxSessions 100",
                 "MaxStartups 100", "LogLevel VERBOSE", "ClientAliveInterval 0",
                 f"SetEnv {_quote_env(self.session_env)}", f"Match User {OPERATOR}",
                 f"    SetEnv {_quote_env({**self.session_env, 'HOME': f'/home/{OPERATOR}'})}"]
        return "\n".join(lines) + "\n"


def _mask(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    path.symlink_to("/dev/null")


def _searchable(root: Path, path: Path) -> None:
    """Every directory above ``path`` searchable by others, in the overlay only (this machine keeps its modes)."""
    for parent in Path(os.path.realpath(path)).parents:
        inside = root / parent.relative_to("/")
        mode = inside.stat().st_mode
        if not mode & stat.S_IXOTH:
            inside.chmod(stat.S_IMODE(mode) | stat.S_IXOTH)


def _add_operator(root: Path) -> None:
    """The non-root account, appended to the image's passwd, group and shadow (in the overlay only)."""
    entries = {"etc/passwd": f"{OPERATOR}:x:{OPERATOR_UID}:{OPERATOR_UID}:mtptui lab operator:/home/{OPERATOR}:/bin/sh",
               "etc/group": f"{OPERATOR}:x:{OPERATOR_UID}:", "etc/shadow": f"{OPERATOR}:*:20000:0:99999:7:::"}
    for name, line in entries.items():
        path = root / name
        text = path.read_text()
        if f"\n{OPERATOR}:" not in "\n" + text:
            path.write_text(text.rstrip("\n") + "\n" + line + "\n")
    home = root / "home" / OPERATOR
    home.mkdir(parents=True, exist_ok=True)
    subprocess.run(["chown", f"{OPERATOR_UID}:{OPERATOR_UID}", str(home)], check=True)
