"""How far the target agrees with each verify step's draft chain: one number in [0, 1) per step of a request.

A stand-in for what makes a real draft head right or wrong (boilerplate is easy, a name chosen for the first time
is not). The numbers are fixed by the seed, the prompt and the request's counter, so a replayed server accepts the
same way, while requests decoding side by side do not move in lockstep; and they are stratified (each block of
``BLOCK`` steps has one number in each of ``BLOCK`` equal slices of [0, 1), in a shuffled order), so a run of a
few dozen steps already realizes the expected accept length closely (within ~2 % at 96 tokens), and two
speculative settings measured on the same prompt differ by their settings rather than by luck.
"""

from __future__ import annotations

from mtptui.sim.textgen import request_rng

BLOCK = 8


class StepDraws:
    """The draws of one request's verify steps, in order."""

    def __init__(self, seed: int, prompt: str, counter: int) -> None:
        self._rng = request_rng(seed, prompt + "\x00steps", counter, 1.0)  # the counter always counts
        self._block: list[float] = []

    def next(self) -> float:
        if not self._block:
            self._block = [(i + self._rng.random()) / BLOCK for i in range(BLOCK)]
            self._rng.shuffle(self._block)
        return self._block.pop()
