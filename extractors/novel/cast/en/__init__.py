"""English cast discovery: scanning speech tags and vocatives, merging forms of one person, roles, answers."""
