"""Property: rendering a flag set and parsing it back gives the same flag set (shell and systemd forms)."""

from __future__ import annotations

import string
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from mtptui.engines.sglang.flags import FlagSet, parse_argv, parse_command, render_argv, render_command
from mtptui.engines.sglang.flags.table import load_table
from mtptui.engines.sglang.unit import read_unit, unit_flagset, with_launch

NASTY = " \t'\"$`;&|<>()\\#*?~!{}[]%=\n"
# "--" alone is the one value argparse itself cannot take (it ends the options), so SGLang never sees it.
TEXT = st.text(alphabet=st.sampled_from(string.ascii_letters + string.digits + NASTY + "é-"), max_size=12).filter(
    lambda s: s != "--")
SAFE_START = TEXT.filter(lambda s: not s.startswith("-"))
VERSIONS = st.sampled_from(["0.5.12.post1", "0.5.23", "0.5.2"])
SIMPLE_TYPES = {None, "str", "int", "float", "human_readable_int", "nullable_str"}


def _scalar(spec):
    if spec.choices:
        return st.sampled_from(spec.choices)
    if spec.type in ("int", "human_readable_int"):
        return st.integers(-10**6, 10**9)
    if spec.type == "float":
        return st.floats(allow_nan=False, allow_infinity=False, width=64)
    return TEXT.filter(lambda s: s != "None") if spec.type == "nullable_str" else TEXT


def _value(spec):
    if spec.flag_kind in ("store_true", "const"):
        return st.just(True)
    if spec.flag_kind == "boolean_optional":
        return st.booleans()
    if spec.is_list:
        item = SAFE_START if not spec.choices and spec.type in (None, "str") else _scalar(spec)
        item = item.filter(lambda v: not str(v).startswith("-"))
        return st.lists(item, min_size=1 if spec.nargs == "+" else 0, max_size=3)
    return _scalar(spec)


@st.composite
def flagsets(draw, version=None):
    version = version or draw(VERSIONS)
    table = load_table(version)
    specs = [s for s in table.flags if s.type in SIMPLE_TYPES and s.name != "--model-path" and s.nargs != "?"
             and s.action != "LoRAPathAction"]
    chosen = draw(st.lists(st.sampled_from(specs), max_size=8, unique_by=lambda s: s.name))
    flags = {spec.name: draw(_value(spec)) for spec in chosen}
    env = draw(st.dictionaries(st.from_regex(r"[A-Z_][A-Z0-9_]{0,8}", fullmatch=True), TEXT, max_size=3))
    return FlagSet(model_path=draw(TEXT), flags=flags, env=env, version=version)


@settings(max_examples=120, deadline=None)
@given(flagsets())
def test_parse_of_render_is_identity(fs: FlagSet) -> None:
    assert parse_command(render_command(fs), fs.version) == fs
    assert parse_command(render_command(fs, multiline=True), fs.version) == fs


@settings(max_examples=60, deadline=None)
@given(flagsets())
def test_argv_round_trip(fs: FlagSet) -> None:
    back = parse_argv(render_argv(fs), fs.version)
    assert (back.model_path, back.flags) == (fs.model_path, fs.flags)


UNIT = ("[Unit]\nDescription=x\n\n[Service]\nExecStart=/bin/true\nRestart=always\n\n"
        "[Install]\nWantedBy=multi-user.target\n")


@settings(max_examples=60, deadline=None)
@given(flagsets(version="0.5.12.post1"))
def test_unit_round_trip(fs: FlagSet) -> None:
    fs.entry = f"{sys.executable} -m sglang.launch_server"
    text = with_launch(read_unit(UNIT), fs)
    unit = read_unit(text)
    assert unit_flagset(unit, fs.version) == fs
    assert text.startswith("[Unit]\nDescription=x\n\n[Service]\n") and text.endswith("WantedBy=multi-user.target\n")
