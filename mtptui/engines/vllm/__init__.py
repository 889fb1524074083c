"""What mtptui knows about vLLM: its log, its command line and flags, its HTTP API and metric names."""
