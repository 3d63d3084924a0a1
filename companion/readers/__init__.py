"""Where tags come from: one interface (base.py), one module per kind of reader, each in its own
thread, reporting TagEvents (events.py)."""
