"""script extractor."""
