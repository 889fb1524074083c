"""Text output of `mtptui bench`: a progress bar fed by the live events, and the results table."""

from __future__ import annotations

from typing import Any, TextIO

from mtptui.bench.compare import Comparison
from mtptui.bench.events import BenchEvent, Notice, RateSample, RequestDone, RunFinished, RunStarted
from mtptui.text import visible

WIDTH = 50
DISTRIBUTIONS = (("ttft_ms", "TTFT (ms)"), ("ttfc_ms", "time to first content (ms)"), ("tpot_ms", "TPOT (ms)"),
                 ("itl_ms", "ITL, per token (ms)"), ("icl_ms", "inter-chunk latency (ms)"), ("e2e_ms", "E2E (ms)"))


class ProgressBar:
    """Draws `[#####.....] 12/20  in flight 4  523 tok/s` on a terminal; elsewhere only notices and a last line."""

    def __init__(self, stream: TextIO, *, label: str = "") -> None:
        self.stream, self.label = stream, label
        self.tty = stream.isatty()
        self.total = self.done = self.failed = self.in_flight = 0
        self.tok_s: float | None = None

    def __call__(self, event: BenchEvent) -> None:
        if isinstance(event, RunStarted):
            self.total = event.requests
        elif isinstance(event, RequestDone) and not event.warmup:
            self.done += 1
            self.failed += not event.metrics.ok
        elif isinstance(event, RateSample):
            self.tok_s, self.in_flight = event.output_tok_s, event.in_flight
        elif isinstance(event, RunFinished):  # the run's rate, not the last (partial) second's
            self.tok_s, self.in_flight = event.result.summary["output_tok_s"], 0
        elif isinstance(event, Notice):
            self._clear()
            print(visible(f"warning: {event.message}"), file=self.stream)
        if self.tty:
            self.stream.write("\r" + self.line())
            self.stream.flush()

    def line(self) -> str:
        filled = int(WIDTH * self.done / self.total) if self.total else 0
        rate = f"  {self.tok_s:7.1f} tok/s" if self.tok_s is not None else ""
        failed = f"  {self.failed} failed" if self.failed else ""
        return (f"{self.label}[{'#' * filled}{'.' * (WIDTH - filled)}] {self.done}/{self.total}"
                f"  in flight {self.in_flight}{rate}{failed}")

    def _clear(self) -> None:
        if self.tty:
            self.stream.write("\r" + " " * (len(self.line()) + 2) + "\r")

    def finish(self) -> None:
        """End the bar's line (terminal) or print its final state (pipe)."""
        self.stream.write(("\n" if self.tty else self.line() + "\n"))
        self.stream.flush()


def _num(value: Any, digits: int = 2) -> str:
    if value is None:
        return "-"
    return f"{value:,.{digits}f}" if isinstance(value, float) else str(value)


def accept_text(summary: dict[str, Any]) -> str:
    """``1.74 (server log)``, or ``- (no accept length: why)``."""
    if summary.get("accept_len") is not None:
        source = summary.get("accept_len_source")
        return f"{summary['accept_len']:,.2f}" + (f" ({source})" if source else "")
    return "-" + (f" ({summary['accept_len_note']})" if summary.get("accept_len_note") else "")


def _engine_text(fingerprint: dict[str, Any]) -> str:
    """The engine a run measured, by name; a run recorded before runs named theirs measured SGLang."""
    from mtptui.engines.registry import DEFAULT, ENGINES

    if "engine" not in fingerprint:
        return DEFAULT.label
    known = ENGINES.get(str(fingerprint["engine"]))
    return known.label if known is not None else "unknown engine"


def _rows(run: dict[str, Any]) -> list[tuple[str, str]]:
    fp, s = run["fingerprint"], run["summary"]
    return [
        ("Target", f"{fp['target']} ({_engine_text(fp)} {fp.get('server_version') or 'unknown version'})"),
        ("Model", str(fp.get("model"))),
        ("Prompts / concurrency / max tokens",
         f"{fp['prompt_set']['name']} / {fp['concurrency']} / {fp['max_tokens']}"),
        ("Sampling", ", ".join(f"{k}={v}" for k, v in fp["sampling"].items() if v is not None and v is not False)),
        ("Successful / failed requests", f"{s['requests_ok']} / {s['requests_failed']}"),
        ("Duration (s)", _num(s["duration_s"])),
        ("Output tokens (reasoning / content)",
         f"{s['output_tokens']} ({s['reasoning_tokens']} / {s['content_tokens']})"),
        ("Output throughput (tok/s)", _num(s["output_tok_s"])),
        ("Peak output throughput (tok/s, 1 s bins)", _num(s.get("peak_output_tok_s"))),
        ("Per-request decode speed (tok/s)", _num(s["request_tok_s"])),
        ("Request throughput (req/s)", _num(s["request_throughput"], 3)),
        ("Accept length", accept_text(s)),
        ("Step cost (ms per decode step and request)", _num(s.get("step_ms"), 1)),
        ("Tokens per chunk", _num(s.get("tokens_per_chunk"))),
    ]


def results_table(run: dict[str, Any]) -> str:
    """The results of one run (its Bench JSON) as aligned text."""
    lines = [f"{'=' * 22} mtptui bench {'=' * 22}"]
    lines += [f"{name + ':':<42}{value}" for name, value in _rows(run)]
    header = f"{'':<30}{'mean':>10}{'median':>10}{'p90':>10}{'p95':>10}{'p99':>10}"
    lines += ["-" * 80, header]
    for key, label in DISTRIBUTIONS:
        d = run["summary"].get(key) or {}
        lines.append(f"{label:<30}" + "".join(f"{_num(d.get(k)):>10}" for k in ("mean", "median", "p90", "p95", "p99")))
    lines.append("=" * 58)
    lines += [f"warning: {w}" for w in run.get("warnings") or []]
    return "\n".join(lines)


def comparison_text(comparison: Comparison, detail: bool = False) -> str:
    """One sentence; with `detail`, the baseline and the launch flags that differ."""
    lines = [f"compare: {comparison.sentence()}"]
    if comparison.stale and comparison.stale != comparison.reason:
        lines.append(f"  {comparison.stale}")
    if detail and comparison.baseline:
        base = comparison.baseline
        lines.append(f"  baseline: run {base.get('id')} of {base.get('recorded_at')}, best of "
                     f"{comparison.before_runs} run(s) of that configuration")
        for name, now, before in comparison.flag_diff:
            lines.append(f"  {name}: {now!r} now, {before!r} before")
        if not comparison.flag_diff:
            lines.append("  same server version and launch flags")
    return "\n".join(lines)
