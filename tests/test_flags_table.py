"""The packaged flag tables: regenerated from the shared reference, and what they say about known flags."""

from __future__ import annotations

import importlib.util
import json
from importlib import resources

import pytest

from mtptui.errors import UserError
from mtptui.engines.sglang.flags.table import DEFAULT_VERSION, load_table, renamed, versions
from tests.conftest import REFERENCE, ROOT


def _gen_module():
    spec = importlib.util.spec_from_file_location("gen_flag_table", ROOT / "scripts" / "gen_flag_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_package_data_is_what_the_script_generates_from_the_reference() -> None:
    source = json.loads((REFERENCE / "sglang-server-flags.json").read_text(encoding="utf-8"))
    packaged = json.loads(resources.files("mtptui.engines.sglang.flags").joinpath("data/flags.json").read_text())
    assert _gen_module().build(source) == packaged


@pytest.mark.parametrize(("version", "count"), [("0.5.23", 531), ("0.5.12.post1", 387), ("0.5.2", 210),
                                                ("0.4.6.post5", 145)])
def test_every_option_of_every_version_is_kept(version: str, count: int) -> None:
    assert len(load_table(version).flags) == count


def test_default_version_is_the_mission_hosts() -> None:
    assert DEFAULT_VERSION == "0.5.12.post1"
    assert "--mamba-scheduler-strategy" in load_table(DEFAULT_VERSION)
    assert "--mamba-scheduler-strategy" not in load_table("0.5.23")


def test_primary_spelling_follows_the_version() -> None:
    assert load_table("0.5.12.post1").canonical("--tp-size") == "--tensor-parallel-size"
    assert load_table("0.5.23").canonical("--tensor-parallel-size") == "--tp-size"


def test_facts_of_the_flags_the_form_edits() -> None:
    table = load_table("0.5.12.post1")
    assert table["--context-length"].type == "human_readable_int"
    assert table["--mamba-full-memory-ratio"].default == 0.9
    assert table["--mamba-scheduler-strategy"].choices == ("auto", "no_buffer", "extra_buffer")
    assert table["--enable-metrics"].flag_kind == "store_true"
    assert table["--cuda-graph-bs"].nargs == "+"
    assert table["--model-path"].required and table["--model-path"].aliases == ("--model",)
    assert "NEXTN" in table.spec_builtins and "DSPARK" not in table.spec_builtins
    assert load_table("0.5.2")["--context-length"].type == "int"


def test_renames_and_versions() -> None:
    assert renamed("0.5.23")["--mamba-scheduler-strategy"] == "--mamba-radix-cache-strategy"
    assert versions() == ["0.5.23", "0.5.12.post1", "0.5.2", "0.4.6.post5"]
    with pytest.raises(UserError, match="unknown SGLang version '9.9'"):
        load_table("9.9")

