"""A widget drawn turned by a quarter, a half or three quarters, to face a player on another side
of the table. Its children are laid out in its own frame (``frame_w`` along its player's edge,
``frame_h`` away from them, origin at the player's left) and touches are turned the same way,
so that its buttons work where they are seen. ``to_window`` knows the turn too (tests press
where a button is drawn)."""

from __future__ import annotations

from kivy.graphics import PopMatrix, PushMatrix, Rotate, Translate
from kivy.properties import NumericProperty, OptionProperty
from kivy.uix.widget import Widget


class Turned(Widget):
    angle = OptionProperty(0, options=(0, 90, 180, 270))

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        # First of all: a kv rule's own drawing (a background) must be turned too.
        self._translate = Translate(0, 0)
        self._rotate = Rotate(angle=0, origin=(0, 0))
        for i, instruction in enumerate((PushMatrix(), self._translate, self._rotate)):
            self.canvas.before.insert(i, instruction)
        self.canvas.after.add(PopMatrix())
        self.bind(pos=self._turn, size=self._turn, angle=self._turn)
        self._turn()

    frame_w = NumericProperty(0)
    frame_h = NumericProperty(0)

    def fill(self, child: Widget) -> Widget:
        """Add ``child`` over the whole frame, and keep it there as the frame changes."""
        child.size_hint = (None, None)

        def fit(*_args) -> None:
            child.pos = (0, 0)
            child.size = (self.frame_w, self.frame_h)

        self.bind(frame_w=fit, frame_h=fit)
        fit()
        self.add_widget(child)
        return child

    def _turn(self, *_args) -> None:
        x, y, w, h = self.x, self.y, self.width, self.height
        a = self.angle
        self.frame_w, self.frame_h = (w, h) if a in (0, 180) else (h, w)
        origin = {0: (x, y), 90: (x + w, y), 180: (x + w, y + h), 270: (x, y + h)}[a]
        self._translate.xy = origin
        self._rotate.angle = a

    # The frame's point (u, v) on the screen, and back.
    def to_parent(self, x: float, y: float, relative: bool = False) -> tuple[float, float]:
        X, Y, W, H = self.x, self.y, self.width, self.height  # noqa: N806 - the frame's names
        a = self.angle
        if a == 0:
            return X + x, Y + y
        if a == 90:
            return X + W - y, Y + x
        if a == 180:
            return X + W - x, Y + H - y
        return X + y, Y + H - x

    def to_local(self, x: float, y: float, relative: bool = False) -> tuple[float, float]:
        X, Y, W, H = self.x, self.y, self.width, self.height  # noqa: N806
        a = self.angle
        if a == 0:
            return x - X, y - Y
        if a == 90:
            return y - Y, X + W - x
        if a == 180:
            return X + W - x, Y + H - y
        return Y + H - y, x - X

    def _dispatch(self, method, touch) -> bool:
        touch.push()
        touch.apply_transform_2d(self.to_local)
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
