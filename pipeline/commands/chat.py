"""CLI commands: chat (in progress)."""
