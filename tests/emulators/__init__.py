"""Faithful emulators of the hardware the companion talks to, driven by the real, unmodified drivers."""
