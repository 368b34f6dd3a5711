"""Scoring against gold data: PDNC quotations, labelled speech cues."""
