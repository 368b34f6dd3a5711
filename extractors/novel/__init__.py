"""novel extractor."""
