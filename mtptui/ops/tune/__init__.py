"""`mtptui tune HOST`: find the best speculative settings of a host, prove them, keep them.

For each arm of a grid (``grid``): derive a launch profile from the base one and lint it (``arms``); restart with
it through the restart's public entry points (plan_restart, Restarter: live progress, automatic rollback); check
that the running process really has the arm's flags (``verify``); warm up and bench the same workload at each
concurrency (mtptui.ops.bench_run); run a greedy canary (``canary``). Then pick the best arm with the bench's
noise-aware comparison and say it in words (``verdict``), and restore the original launch, or keep the best
(``runner``). An abort restores the original too. Nothing here imports Textual: the CLI and the tune screen both
drive ``runner.Tuner``.
"""
