"""The session's one real `vllm serve`, shared by every module that drives a server (registered in conftest).

Starting vLLM on this 2-core machine takes 1-5 minutes, which each module paid on its own before. The modules
that use ``vllm_server`` form one xdist group (tests/conftest.py), so one worker starts the server once and
runs them one after another; each reads only its own requests' part of the log (``VllmServer.mark``). The
command line carries ``--enable-server-load-tracking`` (the conformance module compares the /load route);
the other checks do not depend on it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from tests.vllm_real import venv
from tests.vllm_real.server import VllmServer, make_model

EXTRA = ["--enable-server-load-tracking"]


@pytest.fixture(scope="session")
def vllm_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny model the server serves (and launches that never get as far as loading it name)."""
    return make_model(venv.ensure(), tmp_path_factory.mktemp("vllm-model") / "tiny-qwen2")


@pytest.fixture(scope="session")
def vllm_server(vllm_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[VllmServer]:
    """The running server (ngram speculation, the tiny model); stopped, with nothing of it left, at the end."""
    server = VllmServer.start(tmp_path_factory.mktemp("vllm-server"), extra=EXTRA, model=vllm_model)
    try:
        yield server
    finally:
        server.stop()
    assert server.session_pids() == []
