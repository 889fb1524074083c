"""Benchmark engine: streaming client, metric math, prompt sets, result history."""
