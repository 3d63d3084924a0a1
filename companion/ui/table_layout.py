"""Where everything of the Table screen goes, as plain numbers (no Kivy): one panel per seat on
the side of the screen its player sits at, turned to face them, and a strip in the middle.

The screen never scrolls: sizes come from the window. Bands on the two short edges of the
screen run its whole length; the bands on the long edges sit between them, and the middle strip
takes what is left. Each seat's panel is laid out in its own frame, as its player reads it
(``w`` along the player's edge, ``h`` away from it); the widget turns the frame to its side.

The main number aims at ``MAIN_MM`` tall digits (a bold figure is about 0.7 of its font size)
and never goes below what the panel can hold; touch targets are never below ``touch``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

SIDES = ("bottom", "right", "top", "left")
ANGLES = {"bottom": 0, "right": 90, "top": 180, "left": 270}
# Seats in table order go round the table counter-clockwise as seen from above: the bottom
# row from left to right, up the right side, the top row from right to left, down the left.
DEFAULT_SIDES: dict[int, tuple[str, ...]] = {
    1: ("bottom",),
    2: ("bottom", "top"),
    3: ("bottom", "right", "top"),
    4: ("bottom", "right", "top", "left"),
    5: ("bottom", "bottom", "right", "top", "top"),
    6: ("bottom", "bottom", "right", "top", "top", "left"),
}
DIGIT_HEIGHT = 0.7  # the height of a digit of the bold UI font, as a part of its font size
DIGIT_WIDTH = 0.66  # and its width as drawn (0.63 measured), with room to spare: a digit cut off is a wrong number
LINE = 1.15  # the height a number needs: its digits (0.7) and some air; a label's line box (1.24) has more
MAIN_MM = 10.0
MAX_MAIN_MM = 16.0


def default_sides(count: int) -> list[str]:
    if count in DEFAULT_SIDES:
        return list(DEFAULT_SIDES[count])
    return ["bottom" if i < (count + 1) // 2 else "top" for i in range(count)]


def valid_sides(sides: object, count: int) -> list[str]:
    """The sides chosen at Home when they make sense, the default ones otherwise."""
    if isinstance(sides, list | tuple) and len(sides) == count and all(s in SIDES for s in sides):
        return [str(s) for s in sides]
    return default_sides(count)


Box = tuple[float, float, float, float]  # x, y, w, h


@dataclass
class SeatFrame:
    seat: int
    side: str
    box: Box  # in the screen, in window pixels (before the turn, the same rectangle after it)
    angle: int
    w: float = 0.0  # the frame as its player reads it
    h: float = 0.0


def table_frames(width: float, height: float, sides: list[str], centre: tuple[float, float],
                 thickness: float, short_thickness: float | None = None) -> tuple[list[SeatFrame], Box]:
    """Rectangles of the seats' panels and of the middle strip. ``centre`` is the least room
    (w, h) the strip needs; ``thickness`` what a panel would like to have (``short_thickness``:
    on the screen's short edges, when it differs)."""
    by_side: dict[str, list[int]] = {s: [i for i, x in enumerate(sides) if x == s] for s in SIDES}
    landscape = width >= height
    # Bands on the long edges (top and bottom in landscape) and on the short ones.
    vertical, horizontal = ("bottom", "top"), ("left", "right")
    long_edges, short_edges = (vertical, horizontal) if landscape else (horizontal, vertical)
    n_long = sum(1 for s in long_edges if by_side[s])
    n_short = sum(1 for s in short_edges if by_side[s])
    across_long = height if landscape else width  # the room across the long-edge bands
    across_short = width if landscape else height
    t_long = min(thickness, (across_long - (centre[1] if landscape else centre[0])) / n_long) if n_long else 0.0
    short = thickness if short_thickness is None else short_thickness
    t_short = min(short, (across_short - (centre[0] if landscape else centre[1])) / n_short) if n_short else 0.0
    t_long, t_short = max(0.0, t_long), max(0.0, t_short)
    thick = {s: (t_long if s in long_edges else t_short) for s in SIDES}
    # Short-edge bands run the whole length; the long-edge bands fit between them.
    x0 = thick["left"] if by_side["left"] else 0.0
    x1 = width - (thick["right"] if by_side["right"] else 0.0)
    y0 = thick["bottom"] if by_side["bottom"] else 0.0
    y1 = height - (thick["top"] if by_side["top"] else 0.0)
    if landscape:
        spans = {"bottom": (x0, x1), "top": (x0, x1), "left": (0.0, height), "right": (0.0, height)}
    else:
        spans = {"bottom": (0.0, width), "top": (0.0, width), "left": (y0, y1), "right": (y0, y1)}
        x0 = thick["left"] if by_side["left"] else 0.0
        x1 = width - (thick["right"] if by_side["right"] else 0.0)
    frames: list[SeatFrame] = []
    for side in SIDES:
        seats = by_side[side]
        if not seats:
            continue
        a, b = spans[side]
        step = (b - a) / len(seats)
        t = thick[side]
        for k, seat in enumerate(seats):
            if side == "bottom":  # left to right
                box = (a + k * step, 0.0, step, t)
            elif side == "right":  # bottom to top
                box = (width - t, a + k * step, t, step)
            elif side == "top":  # right to left
                box = (b - (k + 1) * step, height - t, step, t)
            else:  # left: top to bottom
                box = (0.0, b - (k + 1) * step, t, step)
            along = box[2] if side in ("bottom", "top") else box[3]
            across = box[3] if side in ("bottom", "top") else box[2]
            frames.append(SeatFrame(seat, side, box, ANGLES[side], along, across))
    frames.sort(key=lambda f: f.seat)
    return frames, (x0, y0, max(0.0, x1 - x0), max(0.0, y1 - y0))


@dataclass
class PanelPlan:
    """A seat's panel in its own frame (origin at its player's left, y away from them)."""

    w: float
    h: float
    main_font: float
    header: Box  # the player's name
    mains: list[dict[str, Box]] = field(default_factory=list)  # per main counter: minus, value, plus, caption
    chips: list[Box] = field(default_factory=list)  # the small counters
    marks: Box = (0.0, 0.0, 0.0, 0.0)
    menu: Box = (0.0, 0.0, 0.0, 0.0)
    urgent: Box = (0.0, 0.0, 0.0, 0.0)  # an action the rules wait for (a restoration each turn)
    steppers: bool = True  # the main counters have their own - and + (else: a tap opens a pad)

    kind: str = "two"  # "one": a header line, then one row; "two": the big row, then a row with
    # the name; "three": a header line, the big row, a row of small counters

    @property
    def score(self) -> float:
        """How good the panel is for its player: the size of the number, - and + at hand."""
        return self.main_font * (1.0 if self.steppers else 0.85)


def plan_panel(w: float, h: float, *, mains: int, chips: int, digits: int, touch: float, mm: float,
               head: float, small: float, urgent: bool = False) -> PanelPlan:
    """Place a seat's name, main counters (big), small counters, marks and menu button: of the
    arrangements that fit, one with - and + that reaches the aimed size of number, else one
    without them that does, else the one with the largest number."""
    pad = max(2.5, mm * 0.5)
    head_h = head * 1.3
    cap_h = small * 1.2 if mains > 1 else 0.0  # several main numbers each say their name
    chip_w = touch * 1.05  # its words shrink to it: a larger text scale does not push the numbers
    urgent_w = touch * 2.4 if urgent else 0.0
    tail = touch + pad + (urgent_w + pad if urgent else 0.0)  # the menu, and an urgent action
    name_w = touch * 1.8  # the name shrinks to its room: a larger text scale does not push the numbers
    max_font = MAX_MAIN_MM * mm / DIGIT_HEIGHT
    avail = w - 2 * pad

    def attempt(kind: str, steppers: bool) -> tuple[float, int]:
        """(main font, how many small counters go in the big row); font 0: it does not fit."""
        if kind == "three":
            row_h = h - 4 * pad - head_h - touch
        elif kind == "two":
            row_h = h - 3 * pad - touch
        else:
            row_h = h - 3 * pad - head_h
        if row_h - cap_h < touch:
            return 0.0, 0
        if kind == "one":
            k, extra = chips, chips * (chip_w + pad) + tail
        elif kind == "three":
            k, extra = 0, 0.0
            if chips * (chip_w + pad) + tail > avail:
                return 0.0, 0
        else:
            k = next((k for k in range(chips + 1) if name_w + (chips - k) * (chip_w + pad) + tail <= avail), -1)
            if k < 0:
                return 0.0, 0
            extra = k * (chip_w + pad)
        per = (avail - extra - (mains - 1) * pad) / max(1, mains)
        if steppers:
            per -= 2 * (touch + pad)
        if per < touch:  # the number is a touch target too
            return 0.0, 0
        font = min((row_h - cap_h) / LINE, (per - 8) / (DIGIT_WIDTH * max(1, digits) + 0.1), max_font)
        return (font if font > small else 0.0), k

    target = MAIN_MM * mm / DIGIT_HEIGHT
    options = [(attempt(kind, st), kind, st) for st in (True, False) for kind in ("two", "three", "one")]
    # - and + at hand when the number still reaches the aimed size (give or take a few
    # percent); else the largest number.
    good = [o for o in options if o[0][0] >= target * 0.96]
    pick = [o for o in good if o[2]] or good or options
    (font, k), kind, steppers = max(pick, key=lambda o: o[0][0] * (1.0 if o[2] else 0.85))
    if font <= 0:  # nothing fits: the smallest honest arrangement, cut by the panel's edges
        (font, k), kind, steppers = (max(small, 1.0), 0), "two", False
    plan = PanelPlan(w, h, font, (0.0, 0.0, 0.0, 0.0), steppers=steppers, kind=kind)
    row_h = max(touch, font * LINE + cap_h)
    # Rows from the far edge (top of the frame) to the player's edge.
    top = h - pad
    if kind in ("one", "three"):
        plan.header = (pad, top - head_h, avail, head_h)
        top -= head_h + pad
    if kind == "one":
        y_row = max(pad, top - row_h - max(0.0, (top - pad - row_h) / 2))
    elif kind == "three":
        y_row = max(2 * pad + touch, top - row_h - max(0.0, (top - 2 * pad - touch - row_h) / 2))
    else:
        y_row = max(2 * pad + touch, top - row_h - max(0.0, (top - 2 * pad - touch - row_h) / 2))
    in_row = chips if kind == "one" else (0 if kind == "three" else k)
    extra = in_row * (chip_w + pad) + (tail if kind == "one" else 0.0)
    per = (avail - extra - (mains - 1) * pad) / max(1, mains)
    x = pad
    value_h = row_h - cap_h
    for _ in range(mains):
        entry: dict[str, Box] = {}
        if steppers:
            entry["minus"] = (x, y_row + (value_h - touch) / 2, touch, touch)
            entry["value"] = (x + touch + pad, y_row, per - 2 * (touch + pad), value_h)
            entry["plus"] = (x + per - touch, y_row + (value_h - touch) / 2, touch, touch)
        else:
            entry["value"] = (x, y_row, per, value_h)
        if cap_h:
            entry["caption"] = (x, y_row + value_h, per, cap_h)
        plan.mains.append(entry)
        x += per + pad
    # Small counters in the big row, to the right of the main ones.
    chip_h = min(row_h, max(touch, touch * 1.2)) if kind == "one" else touch
    for _ in range(in_row):
        plan.chips.append((x, y_row + (row_h - chip_h) / 2, chip_w, chip_h))
        x += chip_w + pad
    if kind == "one":
        y_tail, h_tail = y_row + (row_h - chip_h) / 2, chip_h
        right = w - pad
    else:
        y_tail, h_tail = pad, touch
        right = w - pad
    plan.menu = (right - touch, y_tail, touch, h_tail)
    right -= touch + pad
    if urgent:
        plan.urgent = (right - urgent_w, y_tail, urgent_w, h_tail)
        right -= urgent_w + pad
    if kind != "one":
        # The bottom row: the small counters not in the big row, then the words.
        cx = right
        row_b: list[Box] = []
        for _ in range(chips - in_row):
            cx -= chip_w
            row_b.insert(0, (cx, pad, chip_w, touch))  # in their listed order, left to right
            cx -= pad
        plan.chips.extend(row_b)
        words = (pad, pad, max(0.0, cx - pad), touch)
        if kind == "two":
            plan.header = (words[0], words[1] + touch * 0.5, words[2], touch * 0.5)
            plan.marks = (words[0], words[1], words[2], touch * 0.5)
        else:
            plan.marks = words
    else:
        plan.marks = plan.header
    return plan


def panel_thickness(touch: float, mm: float, head: float, small: float, mains: int, big: bool = False) -> float:
    """What a panel would like across: a main row a little above the aimed size (``big``: at
    the largest size), and a row of touch targets with the name."""
    pad = max(2.5, mm * 0.5)
    font = (MAX_MAIN_MM if big else MAIN_MM + 2.0) * mm / DIGIT_HEIGHT
    cap = small * 1.2 if mains > 1 else 0.0
    return 3 * pad + cap + max(touch, font * LINE) + touch


def panel_fonts(head: float, small: float, across: float) -> tuple[float, float]:
    """The name's and the small words' sizes in a panel ``across`` high: the theme's (``head``,
    ``small``, text scale included) as far as the panel holds them next to its numbers."""
    return max(14.0, min(head, across * 0.15, 28.0)), max(12.0, min(small, across * 0.11, 22.0))


def pack_rows(widths: list[float], width: float, touch: float, gap: float) -> list[list[int]]:
    """The strip's items (buttons and shared counters, by the width each wants) in rows that fit
    ``width``: the indexes of the items of each row, in order."""
    rows: list[list[int]] = [[]]
    used = gap
    for i, wanted in enumerate(widths):
        need = max(touch, wanted) + gap
        if rows[-1] and used + need > width:
            rows.append([])
            used = gap
        rows[-1].append(i)
        used += need
    return rows


@dataclass
class TablePlan:
    """The seats' frames and panels, and the middle strip."""

    frames: list[SeatFrame]
    strip: Box
    plans: list[PanelPlan]


def plan_table(width: float, height: float, sides: list[str], widths: list[float], text_h: float, *,
               touch: float, gap: float, wanted: float, plan_for: Callable[[SeatFrame], PanelPlan]) -> TablePlan:
    """The panels and the strip for a window of ``width`` x ``height``: the strip's items
    (``widths``) in as many rows, and the bands on the short edges as thick, as give every seat
    the largest number; then every seat has the same size of number, the smallest that every
    panel holds. ``text_h``: the strip's lines of words; ``wanted``: a panel's thickness as it
    would like it; ``plan_for``: a seat's panel in its frame."""
    row_w = sum(widths) + gap * (len(widths) + 1)

    def packed_width(rows: int) -> float:
        """The narrowest strip that holds its items in ``rows`` rows."""
        lo, hi = touch + 2 * gap, row_w + gap
        for _ in range(12):
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if len(pack_rows(widths, mid, touch, gap)) <= rows else (mid, hi)
        return hi

    def attempt(rows: int, short: float = 1.0, strict: bool = True) -> tuple[float, TablePlan] | None:
        frames, centre = table_frames(width, height, sides, (min(packed_width(rows), width),
                                                            text_h + rows * (touch + gap)), wanted, wanted * short)
        if strict and len(pack_rows(widths, centre[2], touch, gap)) > rows:
            return None
        plans = [plan_for(f) for f in frames]
        return min(p.score for p in plans), TablePlan(frames, centre, plans)

    tries = [a for a in (attempt(r, k) for r in (1, 2, 3, 4) for k in (1.0, 0.85, 0.7, 0.55, 0.4)) if a is not None]
    best = max(tries, key=lambda a: a[0]) if tries else attempt(4, strict=False)
    assert best is not None  # not strict: always a plan
    table = best[1]
    font = min(p.main_font for p in table.plans)
    for plan in table.plans:
        plan.main_font = font
    return table


@dataclass
class StripPlan:
    """The middle strip: its items' boxes (in the order given) in centred rows at its bottom, and
    its lines of words above them (each of ``lines`` lines, at ``font``)."""

    items: list[Box]
    turn: Box
    clock: Box
    phase: Box
    message: Box
    lines: int
    font: float


def plan_strip(box: Box, widths: list[float], line: float, touch: float, gap: float,
               clock_chars: float = 5) -> StripPlan:
    """Buttons at the bottom of the strip, in centred rows, each at least a touch target; the
    turn (with the clock, ``clock_chars`` font sizes wide: a venue's round clock too), the phase
    and the last answer above them."""
    x, y, w, h = box
    packed = pack_rows(widths, w, touch, gap)
    rows = len(packed)
    line = max(12.0, min(line, (h - rows * (touch + gap) - 1.5 * gap) / 3))
    # A tall strip (a big window) keeps its words and buttons together, in its middle.
    spare = max(0.0, h - rows * (touch + gap) - 3 * line - 2 * gap)
    # A narrow, tall strip (a screen held upright) gives each line of words a second line.
    each = 2 if w < (line / 1.3) * 24 and spare >= 4 * line else 1
    row_y = y + gap + max(0.0, spare - (4 * line if each == 2 else 0)) / 2
    items: list[Box] = [(0.0, 0.0, 0.0, 0.0)] * len(widths)
    for r, row in enumerate(packed):
        total = sum(widths[i] for i in row) + gap * (len(row) - 1)
        scale = max(min(1.0, (w - 2 * gap) / total) if total else 1.0, 0.0)
        bx = x + max(0.0, (w - total * scale) / 2)
        yy = row_y + (rows - 1 - r) * (touch + gap)
        for i in row:
            bw = max(touch, widths[i] * scale)
            items[i] = (bx, yy, bw, touch)
            bx += bw + gap * scale
    text_y = row_y + rows * (touch + gap)
    font = line / 1.3
    if each == 1:  # the clock at the end of the turn's line
        clock_w = min(w * (0.25 if clock_chars <= 5 else 0.45), font * clock_chars)
        top = text_y + 3 * line
        turn = (x + gap, top - line, w - 2 * gap - clock_w, line)
        clock = (x + w - gap - clock_w, top - line, clock_w, line)
        phase = (x + gap, top - 2 * line, w - 2 * gap, line)
    else:  # the clock on a line of its own, under the turn's two
        top = text_y + 7 * line
        turn = (x + gap, top - 2 * line, w - 2 * gap, 2 * line)
        clock = (x + gap, top - 3 * line, w - 2 * gap, line)
        phase = (x + gap, top - 5 * line, w - 2 * gap, 2 * line)
    message = (x + gap, text_y, w - 2 * gap, each * line)
    return StripPlan(items, turn, clock, phase, message, each, font)
