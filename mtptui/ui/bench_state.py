"""What the bench screen knows, kept outside any widget: the form's values, the live run, the result.

No Textual here: the screen's handlers feed it messages, the widgets read it when they repaint, and the tests
drive it directly. The defaults make a demo bench quick: the mission's red-black-tree prompt, one request at
a time (what the bad redeploy's ``--max-running-requests 1`` serves anyway), 3 measured requests (the fewest
that give the per-request comparison test some footing) of 192 tokens (the rbtree answer thinks for ~140
tokens, so a reasoning parser shows both series): about 17 s at 35 tok/s, 11 s at 55 tok/s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from mtptui.bench.events import RateSample, RequestDone, RunStarted
from mtptui.ops.bench_run import BenchOutcome

DEFAULT_PROMPTS = "rbtree"
DEFAULT_CONCURRENCY = 1
DEFAULT_REQUESTS = 3
DEFAULT_MAX_TOKENS = 192
WARMUP = 1
LIMITS = {"concurrency": (1, 256), "requests": (1, 10_000), "max_tokens": (1, 32_768)}
LABELS = {"concurrency": "concurrency", "requests": "requests", "max_tokens": "max tokens"}


def parse_count(name: str, text: str) -> tuple[int | None, str | None]:
    """(value, None) for a whole number within the field's limits, else (None, one sentence saying why)."""
    low, high = LIMITS[name]
    label = LABELS[name]
    text = text.strip().replace("_", "").replace(",", "")
    if not text:
        return None, f"{label}: enter a number"
    if not text.isdigit():
        return None, f"{label}: a whole number, not {text!r}"
    value = int(text)
    if not low <= value <= high:
        return None, f"{label}: between {low:,} and {high:,}"
    return value, None


@dataclass(frozen=True)
class BenchSettings:
    """One run's workload as chosen in the form."""

    prompts: str = DEFAULT_PROMPTS
    concurrency: int = DEFAULT_CONCURRENCY
    requests: int = DEFAULT_REQUESTS
    max_tokens: int = DEFAULT_MAX_TOKENS

    def describe(self) -> str:
        return (f"{self.prompts} · {self.requests} requests · concurrency {self.concurrency} · "
                f"max tokens {self.max_tokens}")


@dataclass
class BenchLive:
    """One run as it happens: state (idle, running, finished, failed), progress, per-second samples."""

    state: str = "idle"
    settings: BenchSettings | None = None
    total: int = 0
    done: int = 0
    failed: int = 0
    warmup_done: int = 0
    samples: tuple[RateSample, ...] = ()
    request_accept: list[float] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    outcome: BenchOutcome | None = None
    error: str | None = None

    def begin(self, settings: BenchSettings) -> None:
        self.__init__(state="running", settings=settings, total=settings.requests)  # type: ignore[misc]

    def started(self, event: RunStarted) -> None:
        self.total = event.requests

    def request_done(self, event: RequestDone) -> None:
        if event.warmup:
            self.warmup_done += 1
            return
        self.done += 1
        self.failed += not event.metrics.ok
        if event.metrics.ok and event.metrics.accept_len is not None:
            self.request_accept.append(event.metrics.accept_len)

    def finish(self, outcome: BenchOutcome) -> None:
        self.state, self.outcome = "finished", outcome
        summary = outcome.run["summary"]
        self.done = summary["requests_ok"] + summary["requests_failed"]
        self.failed = summary["requests_failed"]
        self.request_accept = [r["accept_len"] for r in outcome.run.get("requests", [])
                               if r.get("ok") and r.get("accept_len") is not None]

    def fail(self, reason: str) -> None:
        self.state, self.error = "failed", reason

    @property
    def in_flight(self) -> int:
        return self.samples[-1].in_flight if self.samples and self.state == "running" else 0

    @property
    def accept_lens(self) -> tuple[str, list[float]]:
        """(where they come from, values): the server's own figures as they arrive ("server log" lines, "gauge"
        updates), else ("per request", each finished request's own accept length)."""
        live = [(s.accept_from, s.accept_len) for s in self.samples if s.accept_len is not None]
        if live:
            return live[-1][0] or "live", [value for _, value in live]
        return "per request", list(self.request_accept)

    @property
    def elapsed(self) -> float | None:
        return self.samples[-1].t if self.samples else None
