"""Who is in a novel: cast discovery (English, Chinese), ranking, completion of a configured cast, name matching."""
