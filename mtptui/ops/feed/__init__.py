"""The dashboard's feed: what the dashboard consumes, free of Textual.

``items`` says what a feed yields (log chunks, the connection's state, the host's status, GPU, /metrics and
gateway readings), the ``Feed`` protocol, and its two implementations (the log follower's feed, and the merge of
a log feed with extra sources); ``host`` builds the feed of a configured host on a ``mtptui.ops.connect`` session
(its log, its service manager's status, the running process, nvidia-smi and the server's own API).
"""
