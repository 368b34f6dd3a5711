"""The novel's text: chapters and paragraphs, quotations, the simplified-Chinese copy, the English speech-tag lexicon."""
