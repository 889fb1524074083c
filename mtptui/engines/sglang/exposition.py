"""SGLang's ``/metrics`` text, read once for everyone who asks (the dashboard's feed, the benchmark): the sample
values of the wanted families, by SGLang's name whichever prefix the text uses (``sglang:`` or a router's or
Grafana's ``sglang_``). How the values of one family combine (summed over ranks, the largest, the mean) is the
caller's figure."""

from __future__ import annotations

from typing import Iterable


def family_values(text: str, names: Iterable[str]) -> dict[str, list[float]]:
    """Every sample value of the families ``names`` in a Prometheus text exposition (a counter's ``_created``
    time is no value of it); a family the text lacks is absent. ValueError when the text is no exposition."""
    from prometheus_client.parser import text_string_to_metric_families

    from mtptui.engines.sglang.surface import metric_name

    wanted = set(names)
    values: dict[str, list[float]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            name = metric_name(sample.name)
            if name in wanted and not sample.name.endswith("_created"):
                values.setdefault(name, []).append(float(sample.value))
    return values
