"""`mtptui restart HOST`: apply a launch profile to a running server, and undo it if the server does not come back.

``plan`` reads the host and says everything the restart will do (the diff, the lint, the exact commands);
``run`` executes a plan step by step with live progress and rolls back on failure (``rollback``); ``drain``
adds the gateway steps (take the worker out, wait, put it back, canary); ``stop`` says what the stop costs the
requests in flight; ``link`` holds the host's restart lock and gets the host back after a dropped connection;
``result`` is what a run ended with; ``handback`` hands a hand-started server back to its unit; ``env`` and
``text`` show the plan. No Textual here: the CLI and the restart panel both drive ``run.Restarter``.
"""
