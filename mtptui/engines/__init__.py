"""Engine knowledge: one package per inference engine beside mtptui/engines/sglang/ (vLLM in engines/vllm/)."""
