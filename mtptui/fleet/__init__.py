"""The fleet: every SGLang (and vLLM) instance a Prometheus scrapes, read through its HTTP API (no Textual here).

    settings = load_settings(url="http://prometheus:9090")
    async with Prometheus(settings.url, settings.auth()) as prom:
        snapshot = await collect(prom, settings)

mtptui builds no collector of its own: targets come from ``/api/v1/targets``, figures from ``/api/v1/query``
(aggregated per instance in PromQL, a fixed number of queries whatever the fleet's size) and sparklines and
history from ``/api/v1/query_range``. What each instance exposes is asked of ``mtptui.engines.sglang.surface`` for its
SGLang version; each engine's families are the registry's (``mtptui.engines.registry.FLEET``).
"""
