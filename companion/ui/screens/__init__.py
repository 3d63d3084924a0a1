"""One module and one kv file (``companion/ui/kv/<name>.kv``) per screen, as in Kivy's showcase."""

from __future__ import annotations

from importlib import resources

_loaded: set[str] = set()


def load_kv(name: str) -> None:
    """Load a screen's kv rules once per process, after the shared widgets' (their rules, the
    ``<ScrollView>`` one among them, apply to the screen's widgets only if loaded first)."""
    if name in _loaded:
        return
    from kivy.lang import Builder

    from companion.ui.widgets import load_widgets_kv

    load_widgets_kv()

    path = resources.files("companion.ui").joinpath("kv", f"{name}.kv")
    Builder.load_file(str(path))
    _loaded.add(name)
