"""The scroll views' overscroll spring, in a real window: content pulled past an edge comes back
to rest inside its bounds whether frames come 1/60 s apart or half a second apart (a loaded
machine, a Raspberry Pi).

Kivy's DampedScrollEffect pulls the content back by a fixed share of the overscroll each frame,
whatever the frame's length, while it moves the content by velocity x time: with frames half a
second apart each swing of a view whose content fits was wider than the last, and the content
went thousands of pixels off the window (the navigation rail did, under load; commit c87e49d).
The frames are simulated by handing the view's effect the time between them, as Kivy's clock
does (its trigger passes the time since the last frame)."""

from __future__ import annotations

import pytest

from tests.ui_helpers import frames

pytestmark = [pytest.mark.ui, pytest.mark.timeout(120)]

SLOW, STEADY = 0.5, 1 / 60
SECONDS = 6.0  # of simulated time to come back: Kivy's own spring rests in under 2 s at 60 fps
PULL = 60  # px past the edge, as a finger leaves it
FLICK = 8000  # px/s, a quick swipe


@pytest.fixture(scope="module")
def root(window, tmp_path_factory):
    """The app's root on the Log screen, over a game of its own."""
    from companion.ui.app import build_root
    from companion.ui.session_mirror import SessionMirror

    session = SessionMirror(journal_path=tmp_path_factory.mktemp("spring") / "games.sqlite3")
    root = build_root(session, start="home")
    window.add_widget(root)
    frames(2, draw=False)
    yield root
    window.remove_widget(root)
    session.close()
    frames(1, draw=False)


def log_view(root, lines: str):
    """The Log screen's scroll view, its content fitting in the view ("fits": a new game's few
    lines) or much taller than it ("overflows": forty moves more); the game kept for the next
    test that asks for the same."""
    session = root.session
    if getattr(root, "_spring_lines", None) != lines:
        root.show("home")  # the moves made, then the log written once (it rewrites itself when shown)
        assert session.new_game("vtes", ["Ann", "Bob"], seed=1).ok
        if lines == "overflows":
            for _ in range(20):
                assert session.apply("pool 1 -1", source="key").ok
                assert session.apply("pool 1 +1", source="key").ok
        root._spring_lines = lines
    root.show("log")
    frames(3, draw=False)
    view = root.get_screen("log").ids.scroll
    content = view.children[0]
    assert (content.height > view.height * 2) == (lines == "overflows"), (content.height, view.height)
    return view


def spring_back(effect, start: float, dt: float, velocity: float = 0.0) -> tuple[list[float], float]:
    """The content at ``start`` let go at ``velocity`` (px/s, 0: pulled and let go), then SECONDS
    of frames ``dt`` apart: the effect's values frame by frame, and its widest overscroll."""
    effect.value = start
    effect.velocity = velocity
    values, widest = [], abs(effect.overscroll)
    for _ in range(round(SECONDS / dt)):
        effect.update_velocity(dt)
        values.append(effect.value)
        widest = max(widest, abs(effect.overscroll))
    return values, widest


def assert_at_rest_in_bounds(view, where: str) -> None:
    effect = view.effect_y
    frames(2, draw=False)  # the view places its content where the effect says
    low, high = sorted((effect.min, effect.max))
    assert effect.velocity == 0 and effect.overscroll == 0, (
        f"{where}: still moving after {SECONDS} s (value {effect.value:.0f}, velocity {effect.velocity:.0f})")
    # (Kivy rounds the value at rest to a whole pixel: bounds can be fractional)
    assert low - 0.5 <= effect.value <= high + 0.5, (
        f"{where}: rests at {effect.value:.0f}, outside {low:.0f}..{high:.0f}")
    content = view.children[0]
    top = view.to_window(view.x, view.top)[1]
    content_top = content.to_window(content.x, content.top)[1]
    content_bottom = content.to_window(content.x, content.y)[1]
    if content.height <= view.height:
        assert abs(content_top - top) < 1, f"{where}: the content's top is {top - content_top:.0f} px below the view's"
    else:
        bottom = view.to_window(view.x, view.y)[1]
        assert content_top >= top - 1 and content_bottom <= bottom + 1, (
            f"{where}: the content ({content_bottom:.0f}..{content_top:.0f}) does not cover the view "
            f"({bottom:.0f}..{top:.0f})")


@pytest.mark.parametrize("dt", [SLOW, STEADY], ids=["half-second-frames", "60fps"])
@pytest.mark.parametrize("lines", ["fits", "overflows"])
def test_content_pulled_past_an_edge_comes_back_to_rest_inside_it(root, lines, dt):
    from kivy.effects.dampedscroll import DampedScrollEffect

    view = log_view(root, lines)
    effect = view.effect_y
    # y values: max is the content's top at the view's top, min its bottom at the view's bottom
    # (the same when the content fits): past max is pulled down, past min pulled up. A flick
    # (FLICK px/s, a quick swipe) from the edge, or from the middle of a long list, runs past it.
    top, bottom = effect.max, effect.min
    cases = {"pulled down": (top - PULL, 0.0), "flicked down at the top": (top, -FLICK)}
    if lines == "overflows":
        cases.update({"pulled up": (bottom + PULL, 0.0), "flicked up at the bottom": (bottom, FLICK),
                      "flicked down from the middle": ((top + bottom) / 2, -FLICK)})
    try:
        for name, (start, velocity) in cases.items():
            where = f"{lines}, {name}, frames {dt:.3f} s apart"
            values, widest = spring_back(effect, start, dt, velocity)
            if velocity:
                # No wider than Kivy's own spring swings at 60 frames a second, and the way flicked.
                kivys = DampedScrollEffect(min=effect.min, max=effect.max)
                _, reach = spring_back(kivys, start, STEADY, velocity)
                assert widest <= reach + 1, (
                    f"{where}: swung {widest:.0f} px past the edge (Kivy at 60 fps: {reach:.0f})")
                assert (values[0] - start) * velocity > 0, f"{where}: the content first moved against the flick"
            else:
                # Each swing no wider than the pull: the spring only ever brings the content back.
                assert widest <= PULL + 0.5, f"{where}: swung {widest:.0f} px past the edge (pulled {PULL})"
            assert_at_rest_in_bounds(view, where)
    finally:
        effect.velocity = 0
        effect.reset(effect.max)  # at rest for the next test, whatever happened


def test_at_60fps_the_spring_moves_as_kivys_own(root):
    """Frames 1/60 s apart: the content comes back along the very path Kivy's DampedScrollEffect
    gives it (the behaviour a fast machine had is kept)."""
    from kivy.effects.dampedscroll import DampedScrollEffect

    view = log_view(root, "overflows")
    effect = view.effect_y
    try:
        for start in (effect.max - PULL, effect.min + PULL):
            kivys = DampedScrollEffect(min=effect.min, max=effect.max)
            expected, _ = spring_back(kivys, start, STEADY)
            got, _ = spring_back(effect, start, STEADY)
            assert got == pytest.approx(expected, abs=1e-6)
    finally:
        effect.velocity = 0
        effect.reset(effect.max)


def test_every_scroll_view_of_the_app_has_the_steady_spring(root):
    """Each screen's scroll views and the navigation rail: none left with Kivy's own effect."""
    from kivy.uix.scrollview import ScrollView

    from companion.ui.app import SCREENS
    from companion.ui.widgets.scroll import SteadyScrollEffect

    views = [root.nav]
    for spec in SCREENS:
        if root.has_screen(spec.name):
            views += [w for w in root.get_screen(spec.name).walk(restrict=True) if isinstance(w, ScrollView)]
    kinds = {(type(view.effect_x).__name__, type(view.effect_y).__name__) for view in views}
    assert len(views) >= 9 and kinds == {("SteadyScrollEffect", "SteadyScrollEffect")}, (len(views), kinds)
    assert all(isinstance(view.effect_y, SteadyScrollEffect) for view in views)
