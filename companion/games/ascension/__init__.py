"""Ascension: Rise of Vigil: its code beside cardmap/ascension/ (rules.py: the table and its
command parsers)."""
