"""ASTRAL CARDS: its code beside cardmap/astral/ (rules.py: the table and its command parsers)."""
