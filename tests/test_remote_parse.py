"""Decoders of what hosts print: reader frames, journal JSON, /proc records (nvidia-smi rows: test_gpu_parse.py)."""

from __future__ import annotations

import base64
import json

import pytest

from mtptui.engines.registry import launch_port
from mtptui.errors import UserError
from mtptui.ops.log_since import journal_since
from mtptui.remote.logsource import (FileLog, FilePosition, FrameDecoder, JournalDecoder, JournalLog, JournalPosition,
                                     Start)
from mtptui.remote.procinfo import parse_proc


def test_a_partial_frame_is_held_back_until_complete():
    decoder = FrameDecoder(FilePosition(7, 10))
    stream = b"7 10 0\n7 10 6\nabc\nde7 16 2\nf\n"
    chunks = decoder.feed(stream[:18])
    assert [c.data for c in chunks] == [b""]
    chunks = decoder.feed(stream[18:])
    assert [(c.data, c.position, c.reset) for c in chunks] == [(b"abc\nde", FilePosition(7, 16), False),
                                                               (b"f\n", FilePosition(7, 18), False)]


def test_a_frame_at_another_place_is_a_reset():
    decoder = FrameDecoder(FilePosition(7, 10))
    (chunk,) = decoder.feed(b"8 0 3\nnew")
    assert chunk.reset and chunk.position == FilePosition(8, 3)


def test_journal_entries_carry_their_cursor_and_any_message_form():
    lines = [{"__CURSOR": "c1", "MESSAGE": "hello"}, {"__CURSOR": "c2", "MESSAGE": [104, 105, 255]},
             {"__CURSOR": "c3", "MESSAGE": None}]
    data = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    decoder = JournalDecoder()
    chunks = decoder.feed(data[:30]) + decoder.feed(data[30:])
    assert [(c.data, c.position) for c in chunks] == [(b"hello\n", JournalPosition("c1")),
                                                      (b"hi\xff\n", JournalPosition("c2")),
                                                      (b"", JournalPosition("c3"))]


def test_journal_command_resumes_at_the_cursor_with_the_prefix_and_drops_the_entry_delivered():
    source = JournalLog("sglang qwen.service", ("sudo",))
    assert source.command(JournalPosition("s=1;i=2"), Start.end()).line == (
        "sudo journalctl -u 'sglang qwen.service' -f -o json --output-fields=MESSAGE,MESSAGE_ID,N_DROPPED "
        "--no-pager --cursor 's=1;i=2'")
    assert source.command(None, Start.beginning()).line.endswith("-n all")
    entries = [{"__CURSOR": "s=1;i=2", "MESSAGE": "delivered"}, {"__CURSOR": "s=1;i=3", "MESSAGE": "next"}]
    data = b"".join(json.dumps(entry).encode() + b"\n" for entry in entries)
    assert [c.data for c in source.decoder(JournalPosition("s=1;i=2")).feed(data)] == [b"next\n"]
    vacuumed = source.decoder(JournalPosition("s=1;i=1"))  # its entry is gone: the first one is new
    assert [c.data for c in vacuumed.feed(data)] == [b"delivered\n", b"next\n"]


def test_journalds_note_of_dropped_lines_is_a_gap_not_a_log_line():
    entry = {"__CURSOR": "c9", "MESSAGE": "Suppressed 2945 messages from sglang-qwen.service",
             "MESSAGE_ID": "a596d6fe7bfa4994828e72309e95d61e", "N_DROPPED": "2945"}
    [chunk] = JournalDecoder().feed(json.dumps(entry).encode() + b"\n")
    assert chunk.gap == 2945 and chunk.position == JournalPosition("c9")
    assert chunk.data == b"journald dropped 2945 lines of sglang-qwen.service here (its rate limit)\n"


def test_journal_command_reads_since_a_time_unless_it_resumes_at_a_cursor():
    source = JournalLog("sglang-qwen.service")
    assert source.command(None, Start.since_time("2026-11-29 14:30")).line.endswith(
        "--no-pager -n all --since '2026-11-29 14:30'")
    assert "--since" not in source.command(JournalPosition("c"), Start.since_time("@1")).line
    assert JournalLog("u").has_times and not FileLog("/x.log").has_times


@pytest.mark.parametrize(("typed", "since", "name"), [
    ("restart", "@1795963413", "the server's last start"), ("14:30", "14:30:00", "14:30 today"),
    ("9:05:10", "9:05:10", "9:05:10 today"), ("2026-11-29 14:30", "2026-11-29 14:30", "2026-11-29 14:30"),
    ("-30 min", "-30min", "30 min ago"), ("-2h", "-2h", "2h ago"), (" today ", "today", "today")])
def test_where_to_read_the_journal_from_in_the_operators_words(typed, since, name):
    assert journal_since(typed, 1795963415.0) == (since, name)


@pytest.mark.parametrize("typed", ["lunch", "14h30", "; rm -rf /", "2026-11-29T14:30"])
def test_anything_else_is_one_sentence(typed):
    with pytest.raises(UserError, match="Give a time"):
        journal_since(typed, 1.0)
    with pytest.raises(UserError, match="start is not known"):
        journal_since("restart", None)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_proc_record_gives_argv_env_group_and_cwd():
    stat = b"4242 (python3 (x) y) S 1 4240 4240 0 -1"
    out = "\n".join([b64(b"python3\0-m\0sglang.launch_server\0--port\0\0"), b64(b"A=1\0SGLANG_X=a=b\0PATH=/bin\0"),
                     b64(stat), b64(b"/srv/work dir\n")]) + "\n"
    info = parse_proc(4242, out)
    assert info.argv == ["python3", "-m", "sglang.launch_server", "--port", ""]
    assert info.env == {"A": "1", "SGLANG_X": "a=b", "PATH": "/bin"}
    assert (info.state, info.ppid, info.pgid, info.cwd) == ("S", 1, 4240, "/srv/work dir")
    assert info.server_env() == {"SGLANG_X": "a=b"} and info.server_env({"A"}) == {"A": "1", "SGLANG_X": "a=b"}


def test_proc_record_gives_the_start_time_from_stat_field_22_and_btime():
    stat = b"77 (sglang::scheduler) S 1 77 77 0 -1 4194560 1 0 0 0 5 2 0 0 20 0 9 0 123450 99 99"
    out = "\n".join([b64(b"python3\0"), "-", b64(stat), "-", "1700000000", "100"]) + "\n"
    assert parse_proc(77, out).started_at == 1700000000 + 1234.5
    assert parse_proc(77, "\n".join([b64(b"python3\0"), "-", b64(stat), "-"])).started_at is None


def test_a_real_process_start_time_over_the_local_transport():
    import asyncio
    import os

    from mtptui.remote.local import LocalTransport
    from mtptui.remote.procinfo import read_process

    info = asyncio.run(read_process(LocalTransport(), os.getpid()))
    btime = next(int(line.split()[1]) for line in open("/proc/stat") if line.startswith("btime"))
    ticks = int(open(f"/proc/{os.getpid()}/stat").read().rsplit(")", 1)[1].split()[19])
    assert info.started_at == btime + ticks / os.sysconf("SC_CLK_TCK")


def test_unreadable_environ_is_none_not_empty():
    out = "\n".join([b64(b"x\0"), "-", b64(b"1 (x) Z 0 1 1"), "-"])
    info = parse_proc(1, out)
    assert info.env is None and info.cwd is None and not info.alive


def test_the_port_a_server_command_line_serves():
    base = ["python3", "-m", "sglang.launch_server", "--model-path", "/m"]
    assert launch_port(base + ["--port", "31000"]) == 31000
    assert launch_port(base + ["--port=31001"]) == 31001
    assert launch_port(base) == 30000 and launch_port(base + ["--port", "x"]) is None


def test_a_vllm_command_line_without_port_serves_on_vllms_default():
    """vLLM's default port is 8000, not SGLang's 30000: ProcessInfo.port (what finds a hand-started server by
    the API's port) says so for every entry vLLM has."""
    for entry in (["vllm", "serve", "/m"], ["/venv/bin/python3", "-m", "vllm.entrypoints.openai.api_server", "--model",
                                           "/m"], ["env", "VLLM_X=1", "vllm", "serve", "/m"]):
        assert launch_port(entry) == 8000, entry
        assert launch_port([*entry, "--port", "31000"]) == 31000
        assert parse_proc(7, "\n".join([b64("\0".join(entry).encode() + b"\0"), "-", b64(b"7 (x) S 1 7 7"),
                                         "-"])).port == 8000
