"""Recorded inputs and helpers for the dashboard's tests (pilot, snapshots)."""
