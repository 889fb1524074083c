"""Simulated inference servers without a GPU: the engine-neutral modelling, and SGLang's personality (`mtptui sim`).

Engine-neutral (any personality uses them; vLLM's lives in mtptui/engines/vllm/sim/): scheduler (queue, batch,
paced steps, hooks for what an engine counts), decode/drafting/draws (step time, acceptance by draft position and
kind of draft, the per-step draws), request/choices/textgen (a request's tokens and outputs, the pseudo-text),
model/memory (the checkpoint stand-in and the memory arithmetic's shared parts), pacing/listen/gpu_state (startup
pacing, the held port, the stand-in nvidia-smi's state file), logfmt's tqdm bars.

SGLang's personality: launch (check the command line like SGLang, run or fail like it) · settings/boot (resolved
launch values and derived sizes) · startup/logfmt/messages/crash (the startup log per version) ·
engine/batchstats/metrics (its scheduler, log lines and gauges) · api/chat/native/oai/info (the HTTP routes) ·
server (uvicorn, signals, warm-up).
"""
