"""The HOST branch of `mtptui diff`: running process vs unit vs profile, read over the host's session."""

from __future__ import annotations

import asyncio

from mtptui.cli.commands._common import print_json


def run_host(args) -> int:
    """The HOST branch of `mtptui diff`."""
    from mtptui.config.loader import find_host
    from mtptui.ops.connect import ask_on_terminal, open_session
    from mtptui.ops.diff_live import LiveDiff, live_diff

    _, host = find_host(args.host, args.config)
    if getattr(args, "sglang_version", None):
        host = host.model_copy(update={"sglang_version": args.sglang_version})

    async def compare() -> LiveDiff:
        async with open_session(host, readonly=args.readonly, accept_host_key=ask_on_terminal) as session:
            return await live_diff(session, args.profile)

    result = asyncio.run(compare())
    if args.json:
        print_json(result.to_json())
    else:
        from mtptui.text import visible

        print(visible(result.render_text()))
    return 0 if result.diff.empty else 1  # diff(1): the sides differ
