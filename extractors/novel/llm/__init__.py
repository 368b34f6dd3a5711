"""The optional LLM pass: chunks of text with their quotations, the schema, asking, caching, matching answers."""
