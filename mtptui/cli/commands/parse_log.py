"""`mtptui parse-log`: a server log (SGLang's or vLLM's, recognised by itself) to JSON-line events, or the final
dashboard state. Every event and the summary carry `"engine"`."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, BinaryIO, Callable, Iterable, cast

from mtptui.cli.commands._common import Subparsers, add
from mtptui.engines.registry import NAMES
from mtptui.errors import UserError

if TYPE_CHECKING:
    from mtptui.engines.registry import Engine

Stream = tuple[str, BinaryIO]  # an input and its name in messages

NAME = "parse-log"
BLOCK = 1 << 20
HEAD = 1 << 16  # how much of the first input is read to recognise its engine


def register(sub: Subparsers, parent: argparse.ArgumentParser) -> None:
    p = add(sub, parent, NAME, "parse SGLang or vLLM log text (stdin when no FILE) into JSON lines")
    p.add_argument("files", nargs="*", metavar="FILE", help="log files; stdin when none")
    p.add_argument("--summary", action="store_true", help="print one JSON object: the state after the input")
    p.add_argument("--engine", choices=NAMES, default=None,
                   help="whose log it is (default: recognised from the log itself; SGLang when unsure)")
    p.set_defaults(run=run)


class _Peeked:
    """A binary stream whose first block was already read (to recognise the engine): that block comes first."""

    def __init__(self, head: bytes, stream: BinaryIO) -> None:
        self.head, self.stream = head, stream

    def read1(self, size: int = -1) -> bytes:
        if self.head:
            head, self.head = self.head, b""
            return head
        data: bytes = getattr(self.stream, "read1", self.stream.read)(size)
        return data

    read = read1

    def close(self) -> None:
        self.stream.close()


def _engine(args: argparse.Namespace, streams: list[Stream]) -> tuple[Engine, list[Stream]]:
    """The engine named by --engine, or the one the first input's start shows; the streams, first one peeked."""
    from mtptui.engines.registry import engine, recognise

    if args.engine:
        return engine(args.engine), streams
    name, first = streams[0]
    read = getattr(first, "read1", first.read)
    head = _read_head(name, read)
    peeked = cast(BinaryIO, _Peeked(head, first))  # read1, read and close: all the parsers call
    return recognise(head.decode("utf-8", "replace")), [(name, peeked), *streams[1:]]


def _read_head(name: str, read: Callable[[int], bytes]) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while size < HEAD:
        try:
            chunk = read(HEAD - size)
        except OSError as exc:
            raise UserError(f"cannot read {name}: {exc.strerror or exc}") from None
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if b"\n" in chunk and size >= 4096:
            break
    return b"".join(chunks)


def run(args: argparse.Namespace) -> int:
    import sys

    streams = _open_all(args.files) if args.files else [("standard input", sys.stdin.buffer)]
    try:
        engine, streams = _engine(args, streams)
        if args.summary:
            from mtptui.cli.commands._common import print_json

            print_json(engine.summarize(streams, _read))
        else:
            for name, stream in streams:
                _read(name, _events, stream, engine)
    except BrokenPipeError:
        _silence_stdout()
    finally:
        for name, stream in streams:
            if name != "standard input":
                stream.close()
    return 0


def _read(name: str, consume: Callable[..., object], stream: BinaryIO, *args: object) -> None:
    """Run `consume(stream, *args)`; a read error (e.g. EIO) becomes one sentence naming the input."""
    try:
        consume(stream, *args)
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise UserError(f"cannot read {name}: {exc.strerror or exc}") from None


def _open_all(paths: list[str]) -> list[Stream]:
    """Open every file before printing anything, so a bad path fails with one sentence and no output."""
    opened: list[Stream] = []
    for path in paths:
        try:
            opened.append((path, open(path, "rb")))
        except OSError as exc:
            for _, stream in opened:
                stream.close()
            raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None
    return opened


def _events(stream: BinaryIO, engine: Engine) -> None:
    """One JSON object per event; flushed per block so `tail -f log | mtptui parse-log` streams."""
    import json
    import sys

    from mtptui.text import visible_json

    parser, write, dumps, name = engine.new_parser(), sys.stdout.write, json.dumps, engine.name

    def lines(events: Iterable[Any]) -> str:
        return "".join([dumps({**event.to_dict(), "engine": name}, ensure_ascii=False) + "\n" for event in events])

    read = getattr(stream, "read1", stream.read)
    while block := read(BLOCK):
        events = parser.feed(block)
        if events:
            write(visible_json(lines(events)))
            sys.stdout.flush()
    write(visible_json(lines(parser.close())))
    sys.stdout.flush()


def _silence_stdout() -> None:
    """The reader went away (`| head`): stop quietly instead of failing again at interpreter exit."""
    import os
    import sys

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
