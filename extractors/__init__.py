"""Source extractors: turn scripts, wiki pages, novels and TV episodes into line records.

Every extractor emits the one record of docs/design.md (`extractors.records.Line`). This package
never imports `pipeline`.
"""
