"""The rules interface every game implements (``base.Rules``, the generic rules a game with no
code of its own plays by). Each game's own rules are in ``companion/games/<id>/rules.py``;
``companion.registry.rules_for(data)`` picks them."""
