"""Table Companion: shows and speaks the cards laid on a reader, keeps the numbers of the game."""

__version__ = "0.1.0"
