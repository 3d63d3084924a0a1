"""Rise: its code beside cardmap/rise/ (rules.py: the table and its command parsers)."""
