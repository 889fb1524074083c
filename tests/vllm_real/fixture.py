"""The session's one real `vllm serve`, shared by every module that drives a server (registered in conftest).

Starting vLLM on this 2-core machine takes 1-5 minutes, which each module paid on its own before. The modules
that use ``vllm_server`` form one xdist group (tests/conftest.py), so one worker starts the server once and
runs them one after another; each reads only its own requests' part of the log (``VllmServer.mark``). The
command line carries ``--enable-server-load-tracking`` (the conformance module compares the /load route);
the other checks do not depend on it. The launches vLLM refuses that the conformance module compares
(``refusing``: each only imports vLLM and judges its command line) start with the server when the session
runs a test that asks for them, whichever module comes first, and run beside its start.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from tests.vllm_real import venv
from tests.vllm_real.server import VllmServer, make_model, vllm_env

EXTRA = ["--enable-server-load-tracking"]
REFUSALS = {"unknown flag": ["--no-such-flag"], "bad value": ["--tensor-parallel-size", "abc"],
            "scheduler bounds": ["--max-num-seqs", "0"]}


@pytest.fixture(scope="session")
def vllm_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny model the server serves (and launches that never get as far as loading it name)."""
    return make_model(venv.ensure(), tmp_path_factory.mktemp("vllm-model") / "tiny-qwen2")


@pytest.fixture(scope="session")
def refusing(vllm_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, subprocess.Popen[str]]]:
    """The refused launches (``REFUSALS``), started at once; killed at the end if one still runs."""
    root = tmp_path_factory.mktemp("vllm-refusals")
    vllm = str(venv.ensure().parent / "vllm")
    processes = {name: subprocess.Popen([vllm, "serve", str(vllm_model), "--port", "1", *extra],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=vllm_env(root),
                                        cwd=root) for name, extra in REFUSALS.items()}
    try:
        yield processes
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.kill()
                process.communicate()


@pytest.fixture(scope="session")
def vllm_server(vllm_model: Path, tmp_path_factory: pytest.TempPathFactory,
                request: pytest.FixtureRequest) -> Iterator[VllmServer]:
    """The running server (ngram speculation, the tiny model); stopped, with nothing of it left, at the end."""
    if any("refusing" in getattr(item, "fixturenames", ()) for item in request.session.items):
        request.getfixturevalue("refusing")  # beside the start, not after the modules before the conformance's
    server = VllmServer.start(tmp_path_factory.mktemp("vllm-server"), extra=EXTRA, model=vllm_model)
    try:
        yield server
    finally:
        server.stop()
    assert server.session_pids() == []
