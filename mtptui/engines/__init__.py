"""Engine knowledge: one package per inference engine beside mtptui/sglang/ (vLLM in engines/vllm/)."""
