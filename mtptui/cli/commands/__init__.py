"""One module per subcommand; each has NAME, register(subparsers, parent) and run(args)."""

from mtptui.cli.commands import (bench, check, demo, diff, flags, fleet, open_host, parse_log, profiles, restart, sim,
                                 tune)

MODULES = [open_host, demo, sim, parse_log, flags, diff, restart, bench, tune, check, profiles, fleet]
NAMES = frozenset(module.NAME for module in MODULES)
