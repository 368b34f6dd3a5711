"""Chinese cast discovery: person names by jieba tagging and a surname lexicon, classical and modern."""
