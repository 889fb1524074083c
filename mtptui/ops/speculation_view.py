"""The speculation the dashboard shows: configured vs live, each side from the best source there is.

Configured: the running command line as the engine resolves it, else what the log's launch line said, else the
API's top level. Live: the log (its switches are seen as they happen) once it has shown this launch, else the
API's live values (polled), else nothing is known beyond the configuration; a source whose configured side is
another launch's (a log still showing the run before a restart) says nothing about this one. Candidates: the
log's, else the launch's. Engine-neutral: every source is a ``mtptui.speculation.LiveSpeculation``.
"""

from __future__ import annotations

from mtptui.speculation import LiveSpeculation, SpecShape


def current(log: LiveSpeculation | None, launch: LiveSpeculation | None,
            server: LiveSpeculation | None) -> LiveSpeculation | None:
    """One view of the three sources (each may be None); None when none of them knows of speculation."""
    configured = next((s.configured for s in (launch, log, server) if s is not None and s.configured), None)
    log, server = (s if s is not None and _same_launch(s, configured) else None for s in (log, server))
    sources = [source for source in (log, launch, server) if source is not None]
    if not sources:
        return None
    live_from = log if log is not None else server
    candidates = _candidates(log, launch, server)
    turned_off = next((s.turned_off for s in sources if s.turned_off), None)
    return LiveSpeculation(configured, live_from.live if live_from else None, candidates,
                           log.switches if log is not None else 0, turned_off,
                           live_from.source if live_from is not None and live_from.live else "")


def _same_launch(source: LiveSpeculation, configured: SpecShape | None) -> bool:
    """The source's configured side is this launch's (or one of the two is not known)."""
    return source.configured is None or configured is None or source.configured == configured


def _candidates(*sources: LiveSpeculation | None) -> tuple[int, ...] | None:
    """The first known candidate list; () when a source says adaptive speculation is on without naming them."""
    known = [s.candidates for s in sources if s is not None and s.candidates is not None]
    return next((c for c in known if c), () if known else None)
