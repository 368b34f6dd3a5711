"""CLI command modules; each attaches commands to the apps of `pipeline.cli_app`."""
