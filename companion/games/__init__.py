"""The games that need code, one package each (``companion/games/<id with _>/``): ``rules.py``
holds the game's ``GameRules`` and its own command parsers; ``__init__.py`` offers the hooks the
generic packages call through ``companion.registry`` (the one door to this package). Each game's
data (words, facts, glossary, cards) is ``cardmap/<id>/``."""
