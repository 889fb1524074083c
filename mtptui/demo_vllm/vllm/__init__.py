"""A STAND-IN for the vllm package, used only by `mtptui demo --engine vllm`: its directory is put first on the
PYTHONPATH of the demo's server, so ``python -m vllm.entrypoints.openai.api_server --model M ...`` runs mtptui's
simulated vLLM (no GPU) and the process has vLLM's real command line (what diffs, restarts and the dashboard read)."""
