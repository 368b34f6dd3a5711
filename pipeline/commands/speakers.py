"""CLI commands for the speakers path (filled in by its issue)."""
