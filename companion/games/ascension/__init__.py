"""Ascension: Rise of Vigil: its code beside cardmap/ascension/ (rules.py: the table and its
command parsers)."""

# The set-up options of `table` this game offers (name → help): the rules read them at set-up.
table_options = {"teams": "teams of two (4 or 6 players)"}
