"""`mtptui profiles list|show`: the configured hosts and their launch profiles."""

from __future__ import annotations

import argparse
import sys

from mtptui.cli.commands._common import Subparsers, add, print_json

NAME = "profiles"


def register(sub: Subparsers, parent: argparse.ArgumentParser) -> None:
    p = add(sub, parent, NAME, "list hosts or show a host's launch profiles")
    actions = p.add_subparsers(dest="profiles_command", metavar="ACTION", required=True)
    lst = actions.add_parser("list", parents=[parent], help="list the configured hosts and their profiles")
    lst.add_argument("--json", action="store_true")
    lst.set_defaults(run=run_list)
    show = actions.add_parser("show", parents=[parent], help="show a host and its launch profiles")
    show.add_argument("host", metavar="NAME", help="host name, e.g. ct129")
    show.add_argument("--json", action="store_true")
    show.set_defaults(run=run_show)


def run_list(args: argparse.Namespace) -> int:
    from mtptui.config import list_hosts

    hosts, errors = list_hosts(args.config)
    from mtptui.text import visible

    for error in errors:
        print(visible(f"mtptui: skipped: {error}"), file=sys.stderr)
    if args.json:
        print_json([{"name": h.name, "file": str(p), "known_good": h.known_good, "profiles": list(h.profiles)}
                    for p, h in hosts])
        return 0
    for path, host in hosts:
        profiles = ", ".join(f"{n}*" if n == host.known_good else n for n in host.profiles) or "(none)"
        print(visible(f"{host.name:<12} {profiles:<40} {path}"))
    if hosts:
        print("(* = known-good profile)")
    return 0


def run_show(args: argparse.Namespace) -> int:
    from mtptui.cli.render_profiles import render_host
    from mtptui.config import find_host

    path, host = find_host(args.host, args.config)
    if args.json:
        from mtptui.secrets import display_env, display_value

        data = host.model_dump(mode="json", exclude_none=True)
        for profile in data.get("profiles", {}).values():  # secret-looking values masked, as in the text
            profile["env"] = display_env(profile.get("env", {}))
            profile["flags"] = {k: display_value(f"--{k}", v) for k, v in profile.get("flags", {}).items()}
        print_json({"file": str(path), **data})
    else:
        from mtptui.text import visible

        sys.stdout.write(visible(render_host(host, path)))
    return 0
