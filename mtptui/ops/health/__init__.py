"""The health line: is the running server as good as it should be, in one verdict with its reasons.

``verdict`` holds the checks and how they combine (drift, speed, acceptance, speculation's cost, pools);
``assess`` gathers their evidence from the host status, the serving figures and the bench history; ``more``,
``speculation`` and ``step_cost`` add the checks about adaptive speculation and the cost of a draft step;
``text`` says the verdict in one line. No Textual here: a headless command can print the same verdict.
"""
