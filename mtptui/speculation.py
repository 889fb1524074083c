"""Speculative decoding as configured and as it runs: one value type, whatever the engine.

An engine may change its speculation while it serves (SGLang's ``--speculative-adaptive`` moves the draft steps
between candidates by how well the drafts are accepted), so "the server runs one draft step" is either the launch
(configured so) or the engine's own choice (a downshift on a workload of low acceptance). ``LiveSpeculation``
keeps both sides and the engine's candidates, so the health verdict, the panes and the diff can tell them apart.
Engines fill it from their own sources (SGLang: the ``server_args=`` log line and the adaptive log lines in
``mtptui.engines.sglang.state.speculation``, ``/server_info`` in ``mtptui.engines.sglang.live``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SpecShape:
    """Speculative settings: algorithm, draft steps, top-k and draft tokens (None where not known)."""

    algorithm: str | None = None
    steps: int | None = None
    topk: int | None = None
    draft_tokens: int | None = None


@dataclass(frozen=True)
class LiveSpeculation:
    """What the launch configured, what runs now, and the candidates the engine moves between.

    ``candidates`` is None when the engine does not adapt (off, or turned off: ``turned_off`` says why), and ()
    while it adapts between candidates not known yet. ``switches`` counts the changes seen since the launch.
    """

    configured: SpecShape | None = None
    live: SpecShape | None = None
    candidates: tuple[int, ...] | None = None
    switches: int = 0
    turned_off: str | None = None
    source: str = ""  # where the live value comes from, e.g. "log" or "/server_info"

    @property
    def adaptive(self) -> bool:
        return self.candidates is not None

    @property
    def configured_steps(self) -> int | None:
        return self.configured.steps if self.configured else None

    @property
    def live_steps(self) -> int | None:
        """The steps running now: the live value, else (nothing changed them) the configured one."""
        if self.live is not None and self.live.steps is not None:
            return self.live.steps
        return self.configured_steps

    @property
    def downshifted(self) -> bool:
        """The engine runs fewer draft steps than configured, by its own choice."""
        configured, live = self.configured_steps, self.live_steps
        return self.adaptive and configured is not None and live is not None and live < configured
