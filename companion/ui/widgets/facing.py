"""A box turned to face the players on the far side of the table: drawn rotated by 180 degrees
about its centre, and touches mirrored the same way, so that its buttons work where they are
seen. Rotating about the centre maps the box onto itself, so the layout around it is unchanged."""

from __future__ import annotations

from kivy.properties import BooleanProperty
from kivy.uix.boxlayout import BoxLayout

from companion.ui.widgets import load_widgets_kv


class FacingBox(BoxLayout):
    flipped = BooleanProperty(False)

    def __init__(self, **kwargs) -> None:
        load_widgets_kv()
        super().__init__(**kwargs)

    def _mirror(self, x: float, y: float) -> tuple[float, float]:
        if not self.flipped:
            return x, y
        cx, cy = self.center
        return 2 * cx - x, 2 * cy - y

    # Kivy walks these for to_window, to_widget and grabbed touches: the rotation is then
    # known to every child (tests use to_window to find where a button is on the screen).
    def to_local(self, x: float, y: float, relative: bool = False) -> tuple[float, float]:
        return self._mirror(x, y)

    def to_parent(self, x: float, y: float, relative: bool = False) -> tuple[float, float]:
        return self._mirror(x, y)

    def _dispatch(self, method, touch) -> bool:
        if not self.flipped:
            return method(touch)
        touch.push()
        touch.apply_transform_2d(self._mirror)
        try:
            return method(touch)
        finally:
            touch.pop()

    def on_touch_down(self, touch) -> bool:
        if not self.collide_point(*touch.pos):
            return False
        return self._dispatch(super().on_touch_down, touch)

    def on_touch_move(self, touch) -> bool:
        return self._dispatch(super().on_touch_move, touch)

    def on_touch_up(self, touch) -> bool:
        return self._dispatch(super().on_touch_up, touch)
