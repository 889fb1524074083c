"""Simulated SGLang server (`mtptui sim`): SGLang's flags, log, HTTP API and speeds, without a GPU.

launch: check the command line like SGLang, run or fail like it · settings/boot: resolved launch values and
derived sizes · model/memory/decode: the stand-ins for the checkpoint, the GPU memory and the GPU's speed ·
startup/logfmt/messages/crash: the startup log per version · engine/request/batchstats/metrics: the scheduler
and its log lines and gauges · api/chat/native/oai/info: the HTTP routes · server: uvicorn, signals, warm-up.
"""
