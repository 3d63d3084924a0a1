"""A text field drawn flat (the theme's colour, no image behind it)."""

from __future__ import annotations

from kivy.properties import StringProperty
from kivy.uix.textinput import TextInput


class FlatInput(TextInput):
    """A TextInput whose background images are none from the start. Kivy's own rule draws a
    TextInput on its default theme's image, and a kv rule's ``background_normal: ""`` comes
    only after that rule: the first field made loaded and decoded that whole image atlas
    (17 ms here, on the way to the Home screen's first frame) for an image never shown."""

    background_normal = StringProperty("")
    background_active = StringProperty("")
