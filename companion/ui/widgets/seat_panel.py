"""A seat on the Table screen: a panel on its player's side, turned to face them, with their name,
their main number(s) big, the other counters, their marks, an action the rules wait for and a
menu. Where each part goes is the panel's plan (``companion.ui.table_layout.plan_panel``)."""

from __future__ import annotations

from kivy.properties import BooleanProperty, ListProperty, NumericProperty, StringProperty

from companion.i18n import t
from companion.ui.table_layout import PanelPlan
from companion.ui.theme import theme
from companion.ui.widgets.buttons import compose
from companion.ui.widgets.counter import SeatCounter
from companion.ui.widgets.icons import mark
from companion.ui.widgets.placed import FitLabel, PanelButton, place
from companion.ui.widgets.turned import Turned


class SeatPanel(Turned):
    """A seat: its name, its main number(s) big, the other counters, its marks, its menu."""

    index = NumericProperty(0)
    header = StringProperty("")
    marks = StringProperty("")  # markup
    active = BooleanProperty(False)
    out = BooleanProperty(False)
    winner = BooleanProperty(False)
    banner = ListProperty([0, 0, 0, 0])
    side = StringProperty("bottom")

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.header_label = FitLabel(bold=True, halign="left")
        self.marks_label = FitLabel(halign="left")
        self.menu_button = PanelButton(glyph="\u22ef", word=t("ui.table.seat_menu"), action="menu")
        self.urgent_button = PanelButton(kind="primary", action="")
        for w in (self.header_label, self.marks_label, self.menu_button, self.urgent_button):
            self.add_widget(w)
        self.ids = {"header": self.header_label, "marks": self.marks_label, "menu": self.menu_button,
                    "urgent": self.urgent_button}
        self.counters: list[SeatCounter] = []
        self.plan: PanelPlan | None = None
        self.bind(header=self._words, marks=self._words, active=self._words, out=self._words)

    @property
    def flipped(self) -> bool:
        return self.angle == 180

    def _words(self, *_args) -> None:
        glyph = mark("active") if self.active else (mark("out") if self.out else "")
        self.header_label.text = compose(glyph, self.header)
        self.header_label.color = theme.bg if self.active else (theme.muted if self.out else theme.text)
        self.marks_label.text = self.marks
        self.marks_label.color = theme.muted if self.out else theme.text

    def arrange(self, plan: PanelPlan, head: float, small: float) -> None:
        self.plan = plan
        header, marks = plan.header, plan.marks
        if plan.kind == "one" or (plan.kind == "three" and marks[2] < plan.menu[2]):
            # The marks follow the name on the header line.
            marks = header
            name_w = min(header[2] * 0.45, (len(self.header) + 2) * head * 0.6)
            header = (header[0], header[1], name_w, header[3])
            marks = (header[0] + name_w + 6, marks[1], max(0.0, marks[2] - name_w - 6), marks[3])
        place(self.header_label, header)
        self.header_label.font_size = min(head, header[3] * 0.8)
        self.banner = list(header) if self.active else [0, 0, 0, 0]
        place(self.marks_label, marks)
        lines = max(1, int(marks[3] // (small * 1.15)))
        self.marks_label.font_size = min(small, marks[3] * 0.8)
        self.marks_label.max_lines = lines
        self.marks_label.shorten = lines == 1
        self.marks_label.valign = "top" if lines > 1 else "middle"
        place(self.menu_button, plan.menu)
        self.menu_button.font_size = min(small * 0.9, plan.menu[2] * 0.2)
        if plan.urgent[2] > 0 and self.urgent_button.action:
            place(self.urgent_button, plan.urgent)
            self.urgent_button.opacity, self.urgent_button.disabled = 1, False
        else:
            place(self.urgent_button, (0, 0, 0, 0))
            self.urgent_button.opacity, self.urgent_button.disabled = 0, True
        self.urgent_button.font_size = small * 0.9
