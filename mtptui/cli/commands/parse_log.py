"""`mtptui parse-log`: SGLang log text to JSON-line events, or the final dashboard state."""

from __future__ import annotations

from mtptui.cli.commands._common import add
from mtptui.errors import UserError

NAME = "parse-log"
BLOCK = 1 << 20


def register(sub, parent) -> None:
    p = add(sub, parent, NAME, "parse SGLang log text (stdin when no FILE) into JSON lines")
    p.add_argument("files", nargs="*", metavar="FILE", help="log files; stdin when none")
    p.add_argument("--summary", action="store_true", help="print one JSON object: the state after the input")
    p.set_defaults(run=run)


def run(args) -> int:
    import sys

    streams = _open_all(args.files) if args.files else [("standard input", sys.stdin.buffer)]
    try:
        if args.summary:
            _summary(streams)
        else:
            for name, stream in streams:
                _read(name, _events, stream)
    except BrokenPipeError:
        _silence_stdout()
    finally:
        for name, stream in streams:
            if name != "standard input":
                stream.close()
    return 0


def _read(name: str, consume, stream, *args) -> None:
    """Run `consume(stream, *args)`; a read error (e.g. EIO) becomes one sentence naming the input."""
    try:
        consume(stream, *args)
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise UserError(f"cannot read {name}: {exc.strerror or exc}") from None


def _open_all(paths: list[str]) -> list:
    """Open every file before printing anything, so a bad path fails with one sentence and no output."""
    opened = []
    for path in paths:
        try:
            opened.append((path, open(path, "rb")))
        except OSError as exc:
            for _, stream in opened:
                stream.close()
            raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None
    return opened


def _summary(streams: list) -> None:
    from mtptui.cli.commands._common import print_json
    from mtptui.sglang.state import ServerState, state_to_dict
    from mtptui.sglang.state.scan import summarize_stream

    state = ServerState()
    for name, stream in streams:
        _read(name, summarize_stream, stream, state)
    print_json(state_to_dict(state))


def _events(stream) -> None:
    """One JSON object per event; flushed per block so `tail -f log | mtptui parse-log` streams."""
    import json
    import sys

    from mtptui.sglang.logparse import LogParser
    from mtptui.text import visible_json

    parser, write, dumps = LogParser(), sys.stdout.write, json.dumps
    read = getattr(stream, "read1", stream.read)
    while block := read(BLOCK):
        events = parser.feed(block)
        if events:
            write(visible_json("".join([dumps(event.to_dict(), ensure_ascii=False) + "\n" for event in events])))
            sys.stdout.flush()
    write(visible_json("".join([dumps(event.to_dict(), ensure_ascii=False) + "\n" for event in parser.close()])))
    sys.stdout.flush()


def _silence_stdout() -> None:
    """The reader went away (`| head`): stop quietly instead of failing again at interpreter exit."""
    import os
    import sys

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())

