"""The tune as text: the arms' table (tok/s per concurrency, accept length, TTFT/TPOT at the first concurrency,
canary), the verdict and what the host runs now. The CLI prints it; the screen has its own widgets."""

from __future__ import annotations

from mtptui.ops.tune.state import TuneRun


def _num(value: object, digits: int = 1) -> str:
    return f"{value:.{digits}f}" if isinstance(value, (int, float)) else "-"


def arm_rows(run: TuneRun) -> tuple[list[str], list[list[str]]]:
    """(header, rows): one row per arm; tok/s are output tok/s per concurrency, the rest at the first one."""
    levels = list(run.plan.workload.concurrency)
    header = ["arm", "status", *[f"c={c} tok/s" for c in levels], "accept", "TTFT ms", "TPOT ms", "canary"]
    rows = []
    best = run.verdict.best if run.verdict else None
    for arm in run.arms:
        first = arm.result_at(levels[0])
        mark = " *" if arm is best else ""
        rows.append([arm.label + mark, arm.phase if arm.status == "running" and arm.phase else arm.status,
                     *[_num(r.output_tok_s) if (r := arm.result_at(c)) else "-" for c in levels],
                     _num(first.accept_len, 2) if first else "-", _num(first.ttft_ms, 0) if first else "-",
                     _num(first.tpot_ms, 1) if first else "-", arm.canary if arm.status == "done" else "-"])
    return header, rows


def render_table(run: TuneRun) -> str:
    header, rows = arm_rows(run)
    widths = [max(len(line[i]) for line in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) if i < 2 else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths)))
             for line in [header, *rows]]
    return "\n".join([lines[0], "-" * len(lines[0]), *lines[1:]])


def gateway_lines(run: TuneRun) -> list[str]:
    """How many restarts went through the gateway drain, and that the arms were measured with its traffic."""
    gateway = run.plan.gateway
    if gateway is None or gateway.last:
        return [f"gateway: {note}" for note in run.plan.gateway_notes]
    drained = sum(1 for r in run.restarts if "gateway_remove" in r["steps"])
    return [f"gateway: {drained} of {len(run.restarts)} restart(s) drained through the gateway at {gateway.gateway} "
            f"({gateway.worker_url} out, idle, restarted, back in, ready); each arm was measured back in the "
            f"gateway, with the gateway's own traffic mixed into its benchmark"]


def render_run(run: TuneRun) -> str:
    """The whole outcome: table, verdict and notes, what was kept. A tune of profiles (``--arms``) answers first:
    its verdict is the first line."""
    answer = run.plan.by_profile and run.verdict is not None
    lines = [run.verdict.sentence, ""] if answer and run.verdict else []
    lines += [render_table(run), ""]
    if run.verdict:
        lines += [] if answer else [f"verdict: {run.verdict.sentence}"]
        lines += [f"  {note}" for note in run.verdict.notes]
    if run.plan.proposal is not None:
        lines.append(f"  adaptive: {run.plan.proposal.sentence()}")
    ladder = run.ladder_json()
    if ladder is not None:
        lines.append(f"  ladder: {ladder['sentence']} (not measured; --save-best saves the best arm, not this)")
    for arm in run.arms:
        if arm.canary == "fail":
            lines.append(f"  canary of {arm.label}: {arm.canary_detail}")
    lines += gateway_lines(run)
    if run.aborted:
        lines.append(f"aborted: {run.aborted}")
    lines.append(f"now: {run.restore}" if run.restore else "now: the final restart did not run")
    return "\n".join(lines)
