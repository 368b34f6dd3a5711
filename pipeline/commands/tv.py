"""CLI commands for the tv path (filled in by its issue)."""
