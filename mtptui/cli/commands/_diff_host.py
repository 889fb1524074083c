"""The HOST branch of `mtptui diff`: running process vs unit vs profile, read over the host's session."""

from __future__ import annotations

import argparse
import asyncio

from mtptui.cli.commands._common import print_json


def run_host(args: argparse.Namespace) -> int:
    """The HOST branch of `mtptui diff`."""
    from mtptui.cli.hostkey_prompt import ask_on_terminal
    from mtptui.config.loader import find_host
    from mtptui.ops.connect import open_session
    from mtptui.ops.diff_live import LiveDiff, live_diff

    _, host = find_host(args.host, args.config)
    if getattr(args, "sglang_version", None):
        host = host.model_copy(update={"sglang_version": args.sglang_version})
    if args.profile:
        host.own_profile(args.profile)  # an unknown or another engine's profile is refused before connecting

    async def compare() -> tuple[LiveDiff, str | None]:
        from mtptui.ops.tune_marker import read_marker

        async with open_session(host, readonly=args.readonly, accept_host_key=ask_on_terminal) as session:
            return await live_diff(session, args.profile), await read_marker(session)

    result, marker = asyncio.run(compare())
    if marker is not None:  # a tune that did not finish: the running side may be an experimental arm
        import sys

        from mtptui.ops.tune_marker import interrupted_sentence
        from mtptui.text import visible

        print(visible(f"note: {interrupted_sentence(marker, host.name)}"), file=sys.stderr)
    if args.json:
        print_json(result.to_json())
    else:
        from mtptui.text import visible

        print(visible(result.render_text()))
    return 0 if result.diff.empty else 1  # diff(1): the sides differ
