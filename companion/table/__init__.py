"""The game on the table: an append-only journal of events and the rules of each game.

Pure logic: no Kivy, no threads. ``Game.new`` / ``Game.open`` and ``Game.apply(intent)``; the
command words of the console and of ``python -m companion table`` are parsed by ``commands``.
"""
