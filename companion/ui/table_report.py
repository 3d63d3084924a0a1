"""What the Table screen's layout made, as data: every counter, button, panel and line of words
with its box in window pixels (image coordinates, as in the PNG beside it), its font size and its
text. ``python -m companion screenshots --layout`` writes it beside each picture of the table; the
layout tests read it."""

from __future__ import annotations

from typing import Any

from kivy.uix.widget import Widget

from companion.ui.table_layout import DIGIT_HEIGHT
from companion.ui.widgets import sizes


def layout_report(screen: Any) -> dict[str, Any]:
    """Every counter and button of ``screen`` (a TableScreen) with its box in window pixels."""
    from kivy.core.window import Window  # the window the screen is in (imported once it exists)

    def box_of(w: Widget) -> list[float]:
        # Image coordinates (origin at the top left), as in the PNG beside the report.
        xs, ys = zip(*(w.to_window(*p) for p in ((w.x, w.y), (w.right, w.top))), strict=True)
        return [round(min(xs), 1), round(Window.height - max(ys), 1),
                round(abs(xs[1] - xs[0]), 1), round(abs(ys[1] - ys[0]), 1)]

    items: list[dict[str, Any]] = []
    for panel in screen._panels:
        seat = panel.index + 1
        for box in panel.counters:
            items.append({"role": "counter", "seat": seat, "name": box.counter, "main": box.main,
                          "box": box_of(box.value_button), "font_px": round(float(box.value_button.font_size), 1),
                          "text": "?" if box.value is None else str(box.value)})
        for box in panel.counters:
            for part, w in (("-", box.minus), ("+", box.plus), ("", box.value_button)):
                if w.opacity > 0 and w.width > 0:
                    items.append({"role": "button", "seat": seat, "name": f"{box.counter}{part or '='}",
                                  "box": box_of(w)})
        for w in (panel.menu_button, panel.urgent_button):
            if w.opacity > 0 and w.width > 0:
                items.append({"role": "button", "seat": seat, "name": w.action or "menu", "box": box_of(w)})
        items.append({"role": "panel", "seat": seat, "name": panel.side, "box": box_of(panel),
                      "angle": int(panel.angle)})
        items.append({"role": "label", "seat": seat, "name": "name", "box": box_of(panel.header_label),
                      "font_px": round(float(panel.header_label.font_size), 1), "text": panel.header})
    for b in screen._strip_buttons:
        items.append({"role": "button", "seat": None, "name": b.action, "box": box_of(b)})
    for box in screen._shared:
        items.append({"role": "counter", "seat": None, "name": box.counter, "main": False,
                      "box": box_of(box.value_button), "font_px": round(float(box.value_button.font_size), 1),
                      "text": "?" if box.value is None else str(box.value)})
    for lab in ("turn_label", "phase_label", "message_label", "clock_label"):
        w = screen.ids[lab]
        items.append({"role": "label", "seat": None, "name": lab, "box": box_of(w),
                      "font_px": round(float(w.font_size), 1)})
    return {"window": [int(Window.width), int(Window.height)], "mm_px": round(sizes.mm, 3),
            "touch_px": sizes.touch, "digit_height": DIGIT_HEIGHT, "items": items}
