"""CLI commands: scripts (in progress)."""
