"""Part of the demo's stand-in vllm package (see vllm/__init__.py)."""
