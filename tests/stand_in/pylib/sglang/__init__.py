"""A STAND-IN for the sglang package on the test host: ``python -m sglang.launch_server`` runs mtptui's
simulated server (no GPU), so the process on the host has SGLang's real command line."""
