"""nvidia-smi's CSV for the live GPU pane, in the formats real drivers print, and the one-sentence readings of a
host whose nvidia-smi is missing or failing (mtptui.remote.gpu)."""

from __future__ import annotations

import pytest

from mtptui.remote.gpu import FIELDS, QUERY, GpuReading, GpuStat, parse_gpus, reading_of

# --query-gpu=index,name,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw,power.limit
NOUNITS = """\
0, NVIDIA RTX A6000, 87, 44318, 49140, 71, 254.32, 300.00
1, NVIDIA GeForce RTX 3090, 100, 23542, 24576, 78, 348.51, 350.00
2, NVIDIA H100 80GB HBM3, [N/A], 12, 81559, 35, [N/A], [N/A]
3, Quadro K2200, 0, 146, 4041, 42, [Not Supported], [Not Supported]
4, NVIDIA A100-SXM4-80GB, 0, 4, 81920, [Unknown Error], 61.26, 400.00
"""
# the same query without ``nounits``: units after the numbers, temperature bare, [N/A] kept as it is
WITH_UNITS = """\
index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB], temperature.gpu, \
power.draw [W], power.limit [W]
0, NVIDIA RTX A6000, 87 %, 44318 MiB, 49140 MiB, 71, 254.32 W, 300.00 W
1, Tesla T4, [N/A], 0 MiB, 15360 MiB, 34, [N/A], 70.00 W
"""


def test_the_query_asks_for_the_fields_the_pane_shows() -> None:
    assert QUERY == ["nvidia-smi", "--query-gpu=" + ",".join(FIELDS), "--format=csv,noheader,nounits"]
    assert FIELDS == ("index", "name", "utilization.gpu", "memory.used", "memory.total", "temperature.gpu",
                      "power.draw", "power.limit")


def test_rows_without_units_and_every_kind_of_unreadable_value() -> None:
    gpus = parse_gpus(NOUNITS)
    assert gpus[0] == GpuStat(0, "NVIDIA RTX A6000", 44318.0, 49140.0, 87.0, 71.0, 254.32, 300.0)
    assert gpus[1].power_w == 348.51 and gpus[1].utilization_pct == 100.0
    h100 = gpus[2]  # MIG mode: no utilisation, no power
    assert (h100.utilization_pct, h100.power_w, h100.power_limit_w, h100.temperature_c) == (None, None, None, 35.0)
    k2200 = gpus[3]
    assert (k2200.power_w, k2200.power_limit_w, k2200.memory_used_mib) == (None, None, 146.0)
    assert gpus[4].temperature_c is None and gpus[4].power_w == 61.26
    assert round(gpus[0].memory_pct, 1) == 90.2 and gpus[2].memory_pct is not None


def test_rows_with_units_and_a_header() -> None:
    gpus = parse_gpus(WITH_UNITS)
    assert [g.index for g in gpus] == [0, 1]  # the header is no GPU
    assert gpus[0] == GpuStat(0, "NVIDIA RTX A6000", 44318.0, 49140.0, 87.0, 71.0, 254.32, 300.0)
    assert (gpus[1].utilization_pct, gpus[1].power_w, gpus[1].power_limit_w) == (None, None, 70.0)


def test_a_name_with_a_comma_and_garbage_lines() -> None:
    text = "garbage line\n7, Weird, Name, 5, 1, 2, 30, 10.5, 20\n8, short, row\n\n"
    assert parse_gpus(text) == [GpuStat(7, "Weird, Name", 1.0, 2.0, 5.0, 30.0, 10.5, 20.0)]
    assert GpuStat(0, "x", None, 100.0, None).memory_pct is None


def test_a_missing_nvidia_smi_is_one_sentence_and_marked_missing() -> None:
    reading = reading_of(127, "", "sh: 1: nvidia-smi: not found\n")
    assert reading == GpuReading(problem="this host has no nvidia-smi on the PATH of its SSH sessions: no live "
                                         "GPU figures", missing=True)


@pytest.mark.parametrize("status, out, problem", [
    (9, "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest "
        "NVIDIA driver is installed and running.\n\n",
     "nvidia-smi fails: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
     "that the latest NVIDIA driver is installed and running."),
    (6, "No devices were found\n", "nvidia-smi fails: No devices were found"),
    (0, "", "nvidia-smi lists no GPU"),
    (None, "", "nvidia-smi fails: exit status None"),
])
def test_a_failing_nvidia_smi_is_one_sentence(status, out, problem) -> None:
    reading = reading_of(status, out, "")
    assert reading.problem == problem and not reading.missing and reading.gpus == ()


def test_a_good_reading_has_no_problem() -> None:
    reading = reading_of(0, NOUNITS, "")
    assert reading.problem is None and len(reading.gpus) == 5
