"""CLI commands for the novel path (filled in by its issue)."""
