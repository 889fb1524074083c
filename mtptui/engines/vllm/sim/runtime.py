"""The state one simulated vLLM shares between its HTTP handlers and its engine: status, requests, load."""

from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass, field
from typing import Any

from mtptui.engines.vllm import api
from mtptui.engines.vllm.sim.boot import VllmBoot
from mtptui.engines.vllm.sim.engine import VllmEngine
from mtptui.engines.vllm.sim.logfmt import VllmLog
from mtptui.engines.vllm.sim.messages import VERSION
from mtptui.engines.vllm.sim.metrics import VllmMetrics
from mtptui.sim.draws import StepDraws
from mtptui.sim.request import Request
from mtptui.sim.textgen import generate, request_rng


@dataclass
class VllmRuntime:
    """Boot facts, the engine, the log and the server's status: starting, up, or dead (the engine core died)."""

    boot: VllmBoot
    engine: VllmEngine
    log: VllmLog
    metrics: VllmMetrics | None
    seed: int
    status: str = "starting"
    started_at: float = field(default_factory=time.time)
    counter: int = 0
    load: int = 0  # requests in flight on the generating routes (with --enable-server-load-tracking)

    @property
    def dead(self) -> bool:
        return self.status == "dead"

    @property
    def thinking_model(self) -> bool:
        return self.boot.settings.model.spec.model_type.startswith("qwen3")

    @property
    def fingerprint(self) -> str:
        """`system_fingerprint` in vLLM's default mode: version, parallelism, 8 hex of the config's hash."""
        s = self.boot.settings
        digest = hashlib.sha256(repr(sorted(s.non_default.items(), key=str)).encode()).hexdigest()[:8]
        tp = [f"tp{s.tensor_parallel_size}"] if s.tensor_parallel_size > 1 else []
        parts = [f"{api.SYSTEM_FINGERPRINT_PREFIX}{VERSION}", *tp]
        return "-".join([*parts, digest])

    def request_id(self, prefix: str) -> str:
        """`cmpl-...`, `chatcmpl-...`: 16 hex digits, fixed by the seed and the request counter."""
        return f"{prefix}-{random.Random(self.seed * 7_919 + self.counter).getrandbits(64):016x}"

    def new_request(self, prompt_key: str, prompt_tokens: int, max_new_tokens: int | None,
                    **options: Any) -> Request:
        """A request with deterministic text (seed + prompt [+ counter when sampling]) and prefix-cache hits."""
        index = self.counter
        self.counter += 1
        temperature = float(options.get("temperature", 0.0))
        stream = generate(request_rng(self.seed, prompt_key, index, temperature), bool(options.get("thinking")))
        rid = f"{random.Random(self.seed * 1_000_003 + index).getrandbits(128):032x}"
        return Request(rid=rid, index=index, prompt_tokens=prompt_tokens, max_new_tokens=max_new_tokens,
                       stream=stream, eos_token_id=self.boot.settings.model.spec.eos_token_id,
                       ignore_eos=bool(options.get("ignore_eos")),
                       cached_tokens=self._cached(prompt_key, prompt_tokens), streaming=bool(options.get("streaming")),
                       draws=StepDraws(self.seed, prompt_key, index))

    def _cached(self, prompt_key: str, prompt_tokens: int) -> int:
        """Automatic prefix caching: a prompt seen before hits in whole blocks, its last token recomputed."""
        settings = self.boot.settings
        if not settings.enable_prefix_caching:
            return 0
        seen = prompt_key in self.engine.seen_prompts
        self.engine.seen_prompts.add(prompt_key)
        return (prompt_tokens - 1) // settings.block_size * settings.block_size if seen else 0
