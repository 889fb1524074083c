"""The outputs of a request's choices (``n > 1``, or a batch of prompts) as they arrive, and their clean-up."""

from __future__ import annotations

import asyncio
from typing import AsyncIterator, Protocol

from mtptui.sim.request import Output, Request


class Queue(Protocol):
    """The scheduler side a choice talks to (mtptui.sim.scheduler)."""

    def submit(self, request: Request) -> None: ...

    def cancel(self, request: Request) -> None: ...


class Runtime(Protocol):
    """What the choices of a request need of a server's runtime (any engine's)."""

    @property
    def engine(self) -> Queue: ...

    def new_request(self, prompt_key: str, prompt_tokens: int, max_new_tokens: int | None, *,
                    temperature: float = ..., thinking: bool = ..., ignore_eos: bool = ...,
                    streaming: bool = ...) -> Request: ...


async def outputs(request: Request) -> AsyncIterator[Output]:
    """One request's outputs up to and including its finish."""
    while True:
        output = await request.outputs.get()
        yield output
        if output.finish_reason is not None:
            return


async def _pump(index: int, request: Request, queue: asyncio.Queue[tuple[int, Output]]) -> None:
    async for output in outputs(request):
        await queue.put((index, output))


async def merged(requests: list[Request]) -> AsyncIterator[tuple[int, Output]]:
    """(choice index, output) of every request, in arrival order, until all have finished."""
    if len(requests) == 1:
        async for output in outputs(requests[0]):
            yield 0, output
        return
    queue: asyncio.Queue[tuple[int, Output]] = asyncio.Queue()
    tasks = [asyncio.create_task(_pump(i, r, queue)) for i, r in enumerate(requests)]
    remaining = len(requests)
    try:
        while remaining:
            index, output = await queue.get()
            remaining -= output.finish_reason is not None
            yield index, output
    finally:
        for task in tasks:
            task.cancel()


def cancel_unfinished(requests: list[Request], rt: Runtime) -> None:
    """The client went away: drop what is still running."""
    for request in requests:
        if not request.finished:
            rt.engine.cancel(request)


def submit(rt: Runtime, prompt_key: str, prompt_tokens: int, max_new: int | None, count: int, *,
           temperature: float = 0.0, thinking: bool = False, ignore_eos: bool = False,
           streaming: bool = False) -> list[Request]:
    """``count`` requests for one prompt (its choices), submitted to the engine."""
    requests = []
    for _ in range(count):
        request = rt.new_request(prompt_key, prompt_tokens, max_new, temperature=temperature, thinking=thinking,
                                 ignore_eos=ignore_eos, streaming=streaming)
        rt.engine.submit(request)
        requests.append(request)
    return requests
