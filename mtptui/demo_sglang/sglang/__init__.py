"""A STAND-IN for the sglang package, used only by `mtptui demo`: its directory is put first on the PYTHONPATH of
the demo's server, so ``python -m sglang.launch_server ARGS`` runs mtptui's simulated server (no GPU) and the
process has SGLang's real command line (what `mtptui diff`, restarts and the dashboard read)."""
