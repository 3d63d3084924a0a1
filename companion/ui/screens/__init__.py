"""One module and one kv file (``companion/ui/kv/<name>.kv``) per screen, as in Kivy's showcase."""

from __future__ import annotations

from importlib import resources

_loaded: set[str] = set()


def load_kv(name: str) -> None:
    """Load a screen's kv rules once per process."""
    if name in _loaded:
        return
    from kivy.lang import Builder

    path = resources.files("companion.ui").joinpath("kv", f"{name}.kv")
    Builder.load_file(str(path))
    _loaded.add(name)
