"""Transports (SSH via asyncssh, local subprocesses) and service managers (systemd, process)."""
