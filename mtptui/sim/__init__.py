"""A simulated SGLang server: same flags, log lines and HTTP API as the real one, no GPU."""
