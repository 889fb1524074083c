"""A vLLM launch's `--config FILE.yaml`, read where the launch runs (mtptui.ops.host_files): the options the file
gives, where vLLM puts them (the command line wins), and one sentence for each file that cannot serve (missing,
no regular file, too big, not YAML, not options). The session reader runs its script for real through the
local transport here; tests/test_lab_vllm_real.py reads a lab host's file over SSH, beside a different local
file of the same path."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from mtptui.config import load_host_file
from mtptui.engines.registry import launches
from mtptui.engines.vllm.flags.launchset import LaunchError, from_words, with_config_files
from mtptui.engines.vllm.flags.lint import lint_words
from mtptui.ops.connect import open_session
from mtptui.ops.host_files import (MAX_BYTES, HostFileError, local_file_reader, session_file_reader,
                                   with_launch_files)
from mtptui.ops.launches import Side
from tests.conftest import CONFIGS

YAML = "max-num-seqs: 8\nmax_model_len: 2048\nenable-prefix-caching: false\n" \
       "speculative-config: {method: ngram, num_speculative_tokens: 3}\n"


def launch(*extra: str) -> object:
    return from_words(["vllm", "serve", "/m", "--config", "/etc/vllm/serve.yaml", *extra])


def test_the_files_options_join_the_launch_and_the_command_line_wins() -> None:
    read = with_config_files(launch("--max-num-seqs", "4"), {"/etc/vllm/serve.yaml": YAML}, "unit:x")
    assert read.flags == {"--max-model-len": 2048, "--enable-prefix-caching": False, "--max-num-seqs": 4,
                          "--speculative-config": {"method": "ngram", "num_speculative_tokens": 3},
                          "--config": "/etc/vllm/serve.yaml"}
    assert read.model_path == "/m" and read.args == launch("--max-num-seqs", "4").args  # written back as it was


def test_a_model_named_only_by_the_file_is_the_launchs_model() -> None:
    bare = from_words(["vllm", "serve", "--config", "/c.yaml"])
    assert with_config_files(bare, {"/c.yaml": "model: /from/yaml\n"}).model_path == "/from/yaml"


@pytest.mark.parametrize("text, said", [
    ("a: [", "unit:x: the --config file /etc/vllm/serve.yaml is not YAML (while parsing a flow node)"),
    ("- 1\n- 2\n", "unit:x: the --config file /etc/vllm/serve.yaml holds a YAML list, not vLLM options by name"),
    ("bogus-option: 3\n", "unit:x: vLLM refuses unrecognized arguments: --bogus-option 3"),
])
def test_a_file_that_is_not_vllm_options_is_one_sentence(text: str, said: str) -> None:
    with pytest.raises(LaunchError) as raised:
        with_config_files(launch(), {"/etc/vllm/serve.yaml": text}, "unit:x")
    assert str(raised.value) == said


def test_without_the_files_text_the_path_is_one_more_option() -> None:
    assert launch().flags == {"--config": "/etc/vllm/serve.yaml"}
    assert with_config_files(launch(), {}).flags == {"--config": "/etc/vllm/serve.yaml"}


def test_offline_lint_still_reads_the_local_file(tmp_path: Path) -> None:
    config = tmp_path / "serve.yaml"
    config.write_text("gpu-memory-utilization: 1.5\n")
    report = lint_words(["org/model", "--config", str(config)])
    assert report.count("error") == 1 and "gpu_memory_utilization" in report.findings[0].message


def _files(tmp_path: Path) -> dict[str, Path]:
    good, big, folder = tmp_path / "good.yaml", tmp_path / "big.yaml", tmp_path / "folder.yaml"
    good.write_text(YAML)
    big.write_text("#" * (MAX_BYTES + 1))
    folder.mkdir()
    return {"good": good, "big": big, "folder": folder, "missing": tmp_path / "missing.yaml"}


@pytest.mark.parametrize("reader", ["session", "local"])
def test_each_file_that_cannot_be_read_is_one_sentence(tmp_path: Path, reader: str) -> None:
    files = _files(tmp_path)
    host = load_host_file(CONFIGS / "demo-vllm.toml")
    read = session_file_reader(open_session(host)) if reader == "session" else local_file_reader
    where = "demo-vllm" if reader == "session" else "this machine"
    assert asyncio.run(read(str(files["good"]))) == YAML
    for name, problem in (("missing", f"does not exist on {where}"), ("folder", f"is not a regular file on {where}"),
                          ("big", f"is bigger than {MAX_BYTES // 1024} KiB on {where} (mtptui reads no more)")):
        with pytest.raises(HostFileError) as raised:
            asyncio.run(read(str(files[name])))
        assert str(raised.value) == f"{files[name]} {problem}"


def test_a_side_whose_file_is_missing_says_which_side(tmp_path: Path) -> None:
    side = Side("running:pid 7", from_words(["vllm", "serve", "/m", "--config", str(tmp_path / "gone.yaml")]))
    with pytest.raises(HostFileError) as raised:
        asyncio.run(with_launch_files(side, launches("vllm"), local_file_reader))
    assert str(raised.value) == f"running:pid 7: the file {tmp_path / 'gone.yaml'} does not exist on this machine"


def _host(tmp_path: Path, ssh: bool) -> object:
    config = tmp_path / "serve.yaml"
    config.write_text("max-num-seqs: 8\n")
    reach = '[ssh]\ntarget = "gpu-far"\n' if ssh else ""
    text = (f'name = "h"\nengine = "vllm"\napi_url = "http://127.0.0.1:8000"\nknown_good = "p"\n{reach}'
            f'[server]\nmanager = "systemd"\nunit = "v.service"\n[log]\nkind = "journal"\n'
            f'[profiles.p]\nmodel_path = "/m"\n[profiles.p.flags]\nconfig = "{config}"\n')
    path = tmp_path / "h.toml"
    path.write_text(text)
    return load_host_file(path)


@pytest.mark.parametrize("ssh, expected", [(False, 8), (True, None)])
def test_without_a_session_only_a_local_hosts_file_is_read_here(tmp_path: Path, ssh: bool,
                                                                expected: int | None) -> None:
    from mtptui.ops.diff_sides import gather_sides

    sides = asyncio.run(gather_sides(_host(tmp_path, ssh), "p"))  # type: ignore[arg-type]
    assert sides.profile.flagset.get("--max-num-seqs") == expected  # a remote host's path is no file of this machine
    assert sides.profile.flagset.get("--config") == str(tmp_path / "serve.yaml")


def test_restart_planning_compares_the_files_content_read_through_the_session(tmp_path: Path) -> None:
    from mtptui.ops.restart.plan import _diff, _resolved

    host = load_host_file(CONFIGS / "demo-vllm.toml")
    session, model, config = open_session(host), launches("vllm"), tmp_path / "serve.yaml"
    wanted = Side("profile:p", from_words(["vllm", "serve", "/m", "--config", str(config), "--max-num-seqs", "8"]))

    def rows(text: str | None) -> set[str]:
        if text is not None:
            config.write_text(text)
        unit = Side("unit:v.service", from_words(["vllm", "serve", "/m", "--config", str(config)]))
        diff = _diff(asyncio.run(_resolved([None, unit, wanted], session, model)), model)
        assert diff is not None and unit.flagset.get("--max-num-seqs") is None  # the request keeps the path
        return {row.flag for row in diff.rows}

    assert "--max-num-seqs" not in rows("max-num-seqs: 8\n")  # same path, same content: nothing to change
    assert "--max-num-seqs" in rows("max-num-seqs: 16\n")  # same path, the file changed: a restart changes it
    config.unlink()
    with pytest.raises(HostFileError) as raised:
        rows(None)
    assert str(raised.value) == f"unit:v.service: the file {config} does not exist on demo-vllm"


def test_the_drift_line_compares_the_files_content_read_once_until_it_changes(tmp_path: Path) -> None:
    """The host feed's reader (mtptui.ops.feed.files) through a real session (its scripts run for real, here the
    local transport; tests/test_lab_vllm_real.py drives the whole status poll over SSH on a real vLLM): the
    running process's file is read once for that process, the known-good's again only when its stamp changed,
    and the drift compares what they say."""
    from mtptui.ops.drift import known_good_drift
    from mtptui.ops.feed.files import LaunchFileReader
    from mtptui.ops.launches import Running
    from mtptui.remote.procinfo import ProcessInfo

    host = _host(tmp_path, False)  # known-good "p": /m with --config serve.yaml (max-num-seqs: 8)
    config = tmp_path / "serve.yaml"
    session = open_session(host)  # type: ignore[arg-type]
    ran: list[str] = []
    run = session.transport.run

    async def spied(command, timeout=None):  # type: ignore[no-untyped-def]
        ran.append(command.what)
        return await run(command, timeout)

    session.transport.run = spied  # type: ignore[method-assign]
    reader = LaunchFileReader(session)

    def process(pid: int) -> Running:
        info = ProcessInfo(pid, ["vllm", "serve", "/m", "--config", str(config)], {}, "S", 1, pid, started_at=pid)
        return Running(info, Side(f"running:pid {pid}", from_words(info.argv)))

    def drift(running: Running) -> tuple[str | None, list[str]]:
        files = asyncio.run(reader(running))
        found = known_good_drift(host, running.side.flagset, files)  # type: ignore[arg-type]
        assert found is not None
        return found.unreadable, [str(item) for item in found.items]

    first = process(7)
    assert drift(first) == (None, []) and ran.count(f"read {config}") == 2  # both sides say 8
    held = reader.last
    assert drift(first) == (None, []) and ran.count(f"read {config}") == 2 and ran.count(f"stat {config}") == 2
    assert reader.last is held  # nothing changed: the same result, nothing computed again from it
    config.write_text("max-num-seqs: 16\n")  # the same path says otherwise; the running process read 8
    assert drift(first) == (None, ["max-seqs 8≠16"]) and ran.count(f"read {config}") == 3
    assert known_good_drift(host, first.side.flagset).count == 0  # type: ignore[arg-type, union-attr]  # the path
    assert drift(process(8)) == (None, []) and ran.count(f"read {config}") == 4  # a new process read 16
    config.unlink()
    sentence = f"profile:p: the file {config} does not exist on h"
    assert drift(process(8)) == (sentence, []) and ran.count(f"read {config}") == 5
    assert drift(process(8)) == (sentence, []) and ran.count(f"read {config}") == 5  # gone: only stat'ed again
    config.write_text("max-num-seqs: [\n")
    assert drift(process(8))[0] == f"profile:p: the --config file {config} is not YAML (while parsing a flow node)"


def test_files_read_for_another_profile_or_launch_are_not_the_drifts() -> None:
    from mtptui.ops.drift import LaunchFiles, known_good_drift

    host = load_host_file(CONFIGS / "demo-vllm.toml")
    model = launches("vllm")
    running = model.argv(["vllm", "serve", "/data/models/Qwen3.6-27B", "--max-num-seqs", "1"], model.version(host))
    good = model.profile(host.profile("restored"), model.version(host))
    gone = LaunchFiles("restored", host.profile("restored"), running, unreadable="profile:restored: gone")
    drift = known_good_drift(host, running, gone)
    assert drift is not None and (drift.unreadable, drift.items) == ("profile:restored: gone", ())
    for other in (LaunchFiles("redeploy-1step", host.profile("redeploy-1step"), running, running, good),
                  LaunchFiles("restored", host.profile("restored"), good, good, good)):  # another launch ran
        drift = known_good_drift(host, running, other)
        assert drift is not None and drift.unreadable is None and "max-seqs 1≠16" in map(str, drift.items)
    assert known_good_drift(host, running, LaunchFiles("restored", host.profile("restored"), running, good,
                                                       good)).count == 0  # type: ignore[union-attr]


@pytest.mark.parametrize("width, text", [
    (200, "▲ warning │ running vs known-good not compared (restored) — profile:restored: the file /etc/v.yaml "
          "does not exist on demo-vllm │ no baseline on this host yet │ d why · b bench"),
    (120, "▲ warning │ known-good ?: profile:restored: the file /etc/v.yaml does not exist on demo-vllm │ d why · b "
          "bench"),
    (60, "▲ warning │ known-good ? │ d why · b bench"),
    (25, "▲ warning │ known-good ?"),
])
def test_the_drift_line_of_a_file_that_cannot_be_read_says_so(width: int, text: str) -> None:
    from mtptui.ops.drift import Drift
    from mtptui.ops.health.text import health_line
    from mtptui.ops.health.verdict import judge

    health = judge(Drift("restored", (), "profile:restored: the file /etc/v.yaml does not exist on demo-vllm"), [],
                   [], speed_base=None)
    assert health.state == "warn" and health.actions == ("diff", "bench")  # the diff says why, not "restore"
    keys = {"diff": "d", "bench": "b"}
    assert "".join(segment for segment, _ in health_line(health, width, keys.__getitem__)) == text
