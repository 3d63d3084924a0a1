"""The scroll views' overscroll spring, the same whatever the frame rate (every ScrollView of the
app gets it: widgets.kv's ``<ScrollView>`` rule).

Kivy's DampedScrollEffect pulls content that is past an edge back by a fixed share of the
overscroll each frame (and damps it by a fixed share of its speed), whatever the frame's length,
while it moves the content by speed x time and scales its friction by the frame's length. Tuned
for 60 frames a second, it goes wrong when frames come far apart (a loaded machine, a Raspberry
Pi): at half a second a frame each swing of content that fits its view was wider than the last
and the content was flung thousands of pixels off the window, and a flick moved a long list the
wrong way (the friction's share passed 100 %).
"""

from __future__ import annotations

import math

from kivy.effects.dampedscroll import DampedScrollEffect

FRAME = 1 / 60  # the frame Kivy's spring is tuned for


class SteadyScrollEffect(DampedScrollEffect):
    """Kivy's damped spring, advanced through the time a frame took in steps of at most 1/60 s,
    its per-frame pulls scaled to each step's share of a 1/60 s frame: at 60 frames a second it
    is Kivy's own, step for step, and slower frames follow the same path in time."""

    def update_velocity(self, dt: float) -> None:
        steps = max(1, math.ceil(dt / FRAME - 1e-9))
        step = dt / steps
        for _ in range(steps):
            if not self._step(step):
                return  # at rest, or stopped at the edge it came back to
        self.trigger_velocity_update()

    def _step(self, dt: float) -> bool:
        """One step of DampedScrollEffect.update_velocity (Kivy 2.3), its spring and edge damping
        scaled by ``dt / FRAME``; False once the motion is over (Kivy's early returns)."""
        if abs(self.velocity) <= self.min_velocity and self.overscroll == 0:
            self.velocity = 0
            if self.round_value:
                self.value = round(self.value)
            return False

        total_force = self.velocity * self.friction * dt / self.std_dt
        if abs(self.overscroll) > self.min_overscroll:
            share = dt / FRAME
            total_force += self.velocity * self.edge_damping * share
            total_force += self.overscroll * self.spring_constant * share
        else:
            self.overscroll = 0

        stop_overscroll = ""
        if not self.is_manual:
            if self.overscroll > 0 and self.velocity < 0:
                stop_overscroll = "max"
            elif self.overscroll < 0 and self.velocity > 0:
                stop_overscroll = "min"

        self.velocity = self.velocity - total_force
        if not self.is_manual:
            self.apply_distance(self.velocity * dt)
            if stop_overscroll == "min" and self.value > self.min:
                self.value = self.min
                self.velocity = 0
                return False
            if stop_overscroll == "max" and self.value < self.max:
                self.value = self.max
                self.velocity = 0
                return False
        return True
