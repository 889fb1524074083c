# The README's two commands: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.stamp-run
STAMP_TEST := $(VENV)/.stamp-test

.PHONY: demo test install sshd clean

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
# lab host (tests/lab: a network namespace reached through a ProxyCommand) iproute2 and netcat, and systemd itself
# (not run as a service manager: its unit parser checks what mtptui writes into units, tests/systemd_parse.py),
# and Prometheus (the fleet tests start the binary themselves on loopback, never the Debian service).
# Installed from Debian's packages when missing and we are root; each is checked on its own.
sshd:
	@missing=""; \
	command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || missing="$$missing openssh-server openssh-client"; \
	command -v tmux >/dev/null 2>&1 || missing="$$missing tmux"; \
	command -v ip >/dev/null 2>&1 || [ -x /usr/sbin/ip ] || missing="$$missing iproute2"; \
	command -v nc >/dev/null 2>&1 || missing="$$missing netcat-openbsd"; \
	[ -x /lib/systemd/systemd ] && command -v systemd-analyze >/dev/null 2>&1 || missing="$$missing systemd"; \
	command -v prometheus >/dev/null 2>&1 || missing="$$missing prometheus"; \
	if [ -n "$$missing" ] && [ "$$(id -u)" = 0 ]; then \
		echo "installing$$missing for the end-to-end tests"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >/dev/null; \
	fi

# Two workers (this is a 2-core machine): tests/conftest.py keeps every host-driving test in one of them.
test: $(STAMP_TEST) sshd
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup $(PYTEST_ARGS)

clean:
	rm -rf $(VENV)
