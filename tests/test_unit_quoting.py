"""What mtptui writes into a unit is what real systemd reads back: checked with systemd's own parser.

mtptui's reader round-tripped its writer's escapes, so its own tests could not see that systemd read ``\\x85`` as
a byte (no longer UTF-8: the whole assignment dropped) and ``\\x202e`` as ``\\x20`` + "2e". Here systemd 252
itself (tests/systemd_parse.py) parses the written unit, over the whole of Unicode (hypothesis), and
``systemd-analyze verify`` must not warn. A character systemd cannot hold at all is refused in one sentence.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from mtptui.engines.sglang.flags import FlagError, FlagSet
from mtptui.engines.sglang.unit import read_unit, unit_flagset, with_launch
from mtptui.engines.sglang.unit.syntax import quote_word
from mtptui.engines.sglang.unit.write import environment_lines
from tests.systemd_parse import parse_unit, systemd_missing

needs_systemd = pytest.mark.needs(systemd_missing())

# The characters of the issue: NBSP, soft hyphen, BOM, ZWSP, RLO, a C1 control; and neighbours.
HOSTILE = ["a\u00a0b", "soft\u00adhyphen", "\ufeffbom", "zero\u200bwidth", "\u202eevil", "c1\u0085x", "\u009b31m",
           "esc\x1b[0m", "del\x7f", "é ü 中文 😀", "line\nbreak", "tab\tx", "\U000e0041tag", "\ue000private",
           "\u0378unassigned", "\u2028sep", "$HOME ${X} %n 100%", "back\\slash \"q\" 'q'", ";", ""]
UNREPRESENTABLE = ["nul\x00", "\ufffe", "\uffff", "\ufdd0", "\U0010ffff", "\U0001fffe", "\ud800lone"]
ANY_CHAR = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=())
SERVICE = "[Service]\n"


def systemd_cannot_hold(text: str) -> bool:
    """NUL, surrogates and Unicode noncharacters: no escape or raw bytes make systemd keep them."""
    return any(c == "\x00" or 0xD800 <= ord(c) <= 0xDFFF or 0xFDD0 <= ord(c) <= 0xFDEF or ord(c) & 0xFFFE == 0xFFFE
               for c in text)


def assignments(values: list[str]) -> list[str]:
    """The Environment= assignments of ``values`` in the order the unit writes them (sorted by name)."""
    return [f"{name}={value}" for name, value in sorted((f"V{i}", v) for i, v in enumerate(values))]


def unit_text(values: list[str], args: list[str]) -> str:
    """A unit with ``values`` as Environment= V0, V1 ... and ``args`` as /bin/echo's arguments."""
    env = "".join(environment_lines({f"V{i}": v for i, v in enumerate(values)}))
    return SERVICE + env + "ExecStart=/bin/echo " + " ".join(quote_word(arg) for arg in args) + "\n"


@needs_systemd
def test_the_issues_characters_reach_systemd_exactly() -> None:
    parsed = parse_unit(unit_text(HOSTILE, HOSTILE))
    assert parsed.environment == assignments(HOSTILE), parsed.stderr
    assert parsed.argv == ["/bin/echo", *HOSTILE]


@needs_systemd
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(ANY_CHAR, max_size=12), min_size=1, max_size=8))
def test_environment_values_over_all_of_unicode_are_what_systemd_reads(values: list[str]) -> None:
    try:
        text = unit_text(values, [])
    except FlagError as refused:
        assert any(systemd_cannot_hold(v) for v in values) and "\n" not in str(refused)
        event("refused: systemd cannot hold a character")
        return
    event("written and read back by systemd")
    assert parse_unit(text).environment == assignments(values)


@needs_systemd
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(ANY_CHAR, max_size=12), min_size=1, max_size=8))
def test_exec_start_arguments_over_all_of_unicode_are_what_systemd_reads(args: list[str]) -> None:
    try:
        text = unit_text([], args)
    except FlagError as refused:
        assert any(systemd_cannot_hold(a) for a in args) and "\n" not in str(refused)
        event("refused: systemd cannot hold a character")
        return
    event("written and read back by systemd")
    assert parse_unit(text).argv == ["/bin/echo", *args]


@pytest.mark.parametrize("value", UNREPRESENTABLE)
def test_a_character_systemd_cannot_hold_is_refused_in_one_sentence(value: str) -> None:
    with pytest.raises(FlagError, match=r"^systemd cannot hold U\+[0-9A-F]{4,6} in a unit file"):
        environment_lines({"NAME": value})
    with pytest.raises(FlagError, match=r"^systemd cannot hold U\+[0-9A-F]{4,6} in a unit file"):
        quote_word(value)


def test_an_environment_name_systemd_would_drop_is_refused() -> None:
    with pytest.raises(FlagError, match="^'-S x' is not an environment variable name systemd accepts"):
        environment_lines({"-S x": "1"})


def test_mtptuis_reader_agrees_with_systemd_on_byte_escapes() -> None:
    unit = read_unit('[Service]\nEnvironment="A=x\\xc2\\xa0y" "B=\\u202e" "C=\\U0001F600"\n'
                     'ExecStart=/bin/python3 -m sglang.launch_server --model-path "/m\\303\\251"\n')
    assert unit.environment == {"A": "x\u00a0y", "B": "\u202e", "C": "😀"}
    assert unit.exec_argv[-1] == "/mé"


@needs_systemd
@pytest.mark.needs(None if shutil.which("systemd-analyze") else "systemd-analyze is not installed")
def test_a_launch_with_hostile_values_passes_verify_and_reads_back(tmp_path: Path) -> None:
    fs = FlagSet.from_profile(_profile(), "0.5.12.post1")
    fs.entry = f"{sys.executable} -m sglang.launch_server"
    fs.flags["--served-model-name"] = "".join(HOSTILE)
    fs.env = {f"V{i}": v for i, v in enumerate(HOSTILE)}
    path = tmp_path / "sglang-x.service"
    path.write_text(with_launch(read_unit("[Unit]\nDescription=x\n[Service]\nExecStart=/bin/false\n"), fs))
    result = subprocess.run(["systemd-analyze", "verify", str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and str(path) not in result.stderr, result.stderr
    parsed = parse_unit(path.read_text())
    assert parsed.environment == [f"{k}={v}" for k, v in sorted(fs.env.items())]
    assert parsed.argv[parsed.argv.index("--served-model-name") + 1] == "".join(HOSTILE)
    assert unit_flagset(read_unit(path.read_text(), name=path.name)) == fs


def _profile():
    from mtptui.config.models import LaunchProfile

    return LaunchProfile(model_path="/models/Qwen3.6-27B", flags={"port": 30000, "tp-size": 2})


@needs_systemd
@pytest.mark.parametrize("value", UNREPRESENTABLE)
def test_systemd_indeed_loses_what_mtptui_refuses(value: str) -> None:
    """Escaped (\\U, \\x00) or raw, systemd drops such a value or refuses the whole unit."""
    char = next(c for c in value if systemd_cannot_hold(c))
    forms = ["\\x00" if char == "\x00" else f"\\U{ord(char):08x}"]
    if char != "\x00" and not 0xD800 <= ord(char) <= 0xDFFF:  # a NUL or a surrogate cannot even be in the file
        forms.append(char)
    for form in forms:
        try:
            parsed = parse_unit(f'{SERVICE}Environment="V={form}"\nExecStart=/bin/echo "{form}"\n')
        except RuntimeError as failed:
            assert "failed to load properly" in str(failed)
            continue
        assert parsed.environment == [] and parsed.argv != ["/bin/echo", char], (form, parsed)
