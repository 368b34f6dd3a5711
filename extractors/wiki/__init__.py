"""wiki extractor."""
