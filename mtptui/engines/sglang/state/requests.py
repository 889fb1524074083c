"""Finished requests from the server's own `--log-requests` finish lines, and their speculative acceptance.

Where the API does not report acceptance per request (0.5.12.post1), these lines do. The totals follow the bench's
definition: accept length = completion tokens / verify steps over the requests that ran speculative decoding;
accept rate = the requests' rates weighted by their verify steps (proposed drafts are verify steps times a
constant per launch, so this equals correct drafts / proposed drafts).
"""

from __future__ import annotations

from typing import Any

from mtptui.engines.sglang.logparse import Event


class RequestTotals:
    """Counts of `request_finish` events and the acceptance they add up to."""

    def __init__(self) -> None:
        self.finished = 0
        self.last: dict[str, Any] | None = None
        self.spec_requests = 0
        self._tokens = 0  # completion tokens of the requests with verify steps
        self._steps = 0
        self._rate_steps = 0.0  # sum of accept rate x verify steps, over the requests that print a rate
        self._rated_steps = 0

    def add(self, event: Event) -> None:
        fields = event.fields
        self.finished += 1
        self.last = dict(fields, ts=event.ts)
        steps, tokens = fields["spec_verify_ct"], fields["completion_tokens"]
        if steps and tokens is not None:
            self.spec_requests += 1
            self._tokens += tokens
            self._steps += steps
            if fields["spec_accept_rate"] is not None:
                self._rate_steps += fields["spec_accept_rate"] * steps
                self._rated_steps += steps

    def speculation(self) -> dict[str, Any] | None:
        """`{"requests", "accept_len", "accept_rate"}` over the requests with verify steps, None without any."""
        if not self.spec_requests:
            return None
        rate = self._rate_steps / self._rated_steps if self._rated_steps else None
        return {"requests": self.spec_requests, "accept_len": self._tokens / self._steps, "accept_rate": rate}
