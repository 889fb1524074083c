"""The state one simulated server shares between its HTTP handlers and its scheduler."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from mtptui.sim.boot import Boot
from mtptui.sim.draws import StepDraws
from mtptui.sim.engine import Engine
from mtptui.sim.logfmt import LogWriter
from mtptui.sim.lossy import flip, lossy_steps
from mtptui.sim.metrics import SimMetrics
from mtptui.sim.request import Request
from mtptui.sim.textgen import count_text_tokens, generate, request_rng


@dataclass
class Runtime:
    """Boot facts, the engine, the log and the server's status (starting until warm-up is done)."""

    boot: Boot
    engine: Engine
    log: LogWriter
    metrics: SimMetrics | None
    seed: int
    host: str
    port: int
    status: str = "starting"
    started_at: float = field(default_factory=time.time)
    counter: int = 0

    @property
    def ready(self) -> bool:
        return self.status == "up"

    @property
    def thinking_model(self) -> bool:
        return self.boot.model.model_type.startswith("qwen3")

    def new_request(self, prompt_key: str, prompt_tokens: int, max_new_tokens: int | None, *,
                    temperature: float = 0.0, thinking: bool = False, ignore_eos: bool = False,
                    health: bool = False, streaming: bool = False) -> Request:
        """A request with a deterministic id and text (seed + prompt [+ counter when sampling])."""
        index = self.counter
        self.counter += 1
        rid = f"{random.Random(self.seed * 1_000_003 + index).getrandbits(128):032x}"
        stream = generate(request_rng(self.seed, prompt_key, index, temperature), thinking)
        if self.lossy:
            stream = flip(stream)
        return Request(rid=rid, index=index, prompt_tokens=prompt_tokens, max_new_tokens=max_new_tokens,
                       stream=stream, eos_token_id=self.boot.model.eos_token_id, ignore_eos=ignore_eos,
                       cached_tokens=self._cached(prompt_key, prompt_tokens), health=health, streaming=streaming,
                       draws=StepDraws(self.seed, prompt_key, index))

    @property
    def lossy(self) -> bool:
        """The test-only switch of mtptui.sim.lossy names this launch's speculative steps."""
        settings = self.boot.settings
        return settings.speculative and settings.spec_steps in lossy_steps(settings.env)

    def _cached(self, prompt_key: str, prompt_tokens: int) -> int:
        """Radix cache: a prompt seen before is served from cache but for its last token."""
        if self.boot.settings.disable_radix_cache:
            return 0
        seen = prompt_key in self.engine.seen_prompts
        self.engine.seen_prompts.add(prompt_key)
        return max(prompt_tokens - 1, 0) if seen else 0

    def text_tokens(self, text: str) -> int:
        return count_text_tokens(text)
