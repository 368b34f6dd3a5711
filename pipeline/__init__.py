"""Pipeline stages: lines -> stories -> embeddings -> character package; chat runtime; CLI."""
