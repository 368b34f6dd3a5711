"""Who says each quotation: speech tags, pronouns, conversation turns, calibration, Chinese rules."""
