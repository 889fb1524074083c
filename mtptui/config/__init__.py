"""Host and launch-profile configuration: pydantic models, TOML load/save, lookup paths."""

from mtptui.config.loader import dump_host, find_host, list_hosts, load_host_file, save_host
from mtptui.config.models import HostConfig, LaunchProfile

__all__ = [
    "HostConfig",
    "LaunchProfile",
    "dump_host",
    "find_host",
    "list_hosts",
    "load_host_file",
    "save_host",
]
