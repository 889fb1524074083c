"""Benchmark engine: streaming client, metric math, prompt sets, result history. No Textual here.

A UI runs a benchmark and follows it live with either form (events are plain frozen dataclasses from
`mtptui.bench.events`: RunStarted, RateSample per second, RequestDone per request, Notice, RunFinished):

    runner = BenchRunner(BenchConfig(url=..., prompts=load_prompt_set("rbtree"), plan=LoadPlan(requests=8)))
    async for event in runner.events(): ...          # mtptui.bench.runner
    result = await runner.run(on_event=callback)      # the callback must return at once

Modules: `client` (httpx + httpx-sse streaming), `chunks`/`tokens`/`metrics`/`summary` (timeline -> numbers),
`metrics_poll` (/metrics counters and gauges, either prefix), `decodelog` (the server's decode-log lines during
a run), `accept` (which accept length a run reports, and its source), `load`, `prompts`, `runner`, `history`,
`compare`, `report` (CLI text).
"""
