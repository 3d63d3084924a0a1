"""A card laid, shown over the middle of the Table screen and turned to the seat that laid it,
with what it proposes (scan to play: apply, or leave it)."""

from __future__ import annotations

from typing import Any

from kivy.clock import Clock
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label

from companion.i18n import t
from companion.ui.theme import theme
from companion.ui.widgets import sizes
from companion.ui.widgets.buttons import GlyphButton
from companion.ui.widgets.turned import Turned

CARD_SECONDS = 12.0  # a card laid stays over the table this long, unless touched


class CardOverlay(Turned):
    """A card laid, over the middle of the table and turned to the seat that laid it; the
    seats' numbers stay in sight and the keys keep working. A touch, or a pause, takes it away."""

    def __init__(self, screen: Any, scan: Any, angle: int = 0, **kwargs) -> None:
        super().__init__(angle=angle, **kwargs)
        from kivy.graphics import Color, Line, Rectangle

        from companion.ui.screens.card import scan_view

        self.screen = screen
        self.view = scan_view(scan, self._game_info(scan))
        with self.canvas.before:
            Color(*theme.surface)
            self._bg = Rectangle()
            Color(*theme.accent)
            self._border = Line(width=2)
        self.content = BoxLayout(orientation="vertical", padding=theme.gap / 2, spacing=2)
        self.add_widget(self.content)
        size = min(theme.body, 26)
        self.title = Label(text=self.view.title, font_name=theme.font_name, font_size=size * 1.3, bold=True,
                           color=theme.accent, halign="center", valign="middle", size_hint_y=None,
                           height=size * 1.8, shorten=True, shorten_from="right")
        fields = "   ".join(t("text.label_value").format(label=label, value=value) for label, value in self.view.fields)
        self.fields = Label(text=fields, font_name=theme.font_name, font_size=size * 0.8, color=theme.muted,
                            halign="center", valign="middle", size_hint_y=None, height=size * 1.2, shorten=True)
        self.text = Label(text=self.view.text, font_name=theme.font_name, font_size=size, color=theme.text,
                          halign="left", valign="top")
        for w in (self.title, self.fields, self.text):
            w.bind(size=lambda lab, s: setattr(lab, "text_size", s))
            self.content.add_widget(w)
        self.bind(frame_w=self._fit, frame_h=self._fit)
        self._fit()
        self.proposal: Any = None
        self.proposal_box: Any = None
        self._timer = Clock.schedule_once(lambda _dt: self.close(), CARD_SECONDS)

    def _game_info(self, scan: Any) -> Any:
        games = getattr(self.screen.manager.get_screen("card"), "games", None) if self.screen.manager else None
        card = getattr(scan, "card", None)
        try:
            return games(card.game) if callable(games) and card is not None else None
        except Exception:  # a game's data that failed to load: the card shows without it
            return None

    def _fit(self, *_args) -> None:
        self.content.pos = (0, 0)
        self.content.size = (self.frame_w, self.frame_h)
        self._bg.pos, self._bg.size = (0, 0), (self.frame_w, self.frame_h)
        self._border.rectangle = (1, 1, self.frame_w - 2, self.frame_h - 2)

    def show_proposal(self, proposal: Any) -> None:
        """What the card proposes ("Mystique : acquérir pour 3 runes ?"), with ✓ to apply it and
        a button to leave it; the essences to choose first, when the card asks for some. The card
        stays until one of them is touched (or the table moves on)."""
        from companion import i18n

        self._timer.cancel()
        if self.proposal_box is not None:
            self.content.remove_widget(self.proposal_box)
        self.proposal = proposal
        self.chosen: list[str] = []
        game = self.screen.session.game if self.screen.session is not None else None
        if proposal is None or game is None:
            self.proposal_box = None
            return
        lang = i18n.language()
        size = min(theme.body, 26)
        touch = sizes.touch
        # The strip is short at 800x480: the question sits beside its two buttons, in one row.
        box = BoxLayout(orientation="vertical", size_hint_y=None, spacing=2)
        blocked = proposal.blocked(lang)
        self.question = Label(text=proposal.text(game, lang) + (f"  {blocked}" if blocked else ""),
                              font_name=theme.font_name, font_size=size * 0.9, bold=True,
                              color=theme.accent if blocked else theme.text, halign="center", valign="middle")
        self.question.bind(size=lambda lab, s: setattr(lab, "text_size", s))
        self.choice_buttons: dict[str, GlyphButton] = {}
        if proposal.choices:
            row = BoxLayout(orientation="horizontal", size_hint_y=None, height=touch, spacing=4)
            for essence in proposal.choices["allowed"]:
                b = GlyphButton(word=game.data.counter(essence).name(lang), wrap=True, font_size=size * 0.8)
                b.bind(on_release=lambda _b, e=essence: self.choose(e))
                row.add_widget(b)
                self.choice_buttons[essence] = b
            box.add_widget(row)
            self.fields.height = 0  # room for the essences: the type and cost are in the question
            self.fields.opacity = 0
        buttons = BoxLayout(orientation="horizontal", size_hint_y=None, height=touch, spacing=6)
        self.apply_button = GlyphButton(glyph="\u2713", word=t("play.apply"), kind="primary", font_size=size * 0.9,
                                        size_hint_x=None, width=max(touch * 2.2, size * 5))
        self.apply_button.bind(on_release=lambda *_: self.apply())
        self.leave_button = GlyphButton(glyph="\u2717", word=t("play.leave"), font_size=size * 0.9,
                                        size_hint_x=None, width=max(touch * 2.0, size * 4.5))
        self.leave_button.bind(on_release=lambda *_: self.leave())
        buttons.add_widget(self.question)
        buttons.add_widget(self.apply_button)
        buttons.add_widget(self.leave_button)
        box.add_widget(buttons)
        self.title.height = size * 1.4
        box.height = touch * (2 if proposal.choices else 1) + 2
        self.proposal_box = box
        self.content.add_widget(box)

    def choose(self, essence: str) -> None:
        """An essence touched for the card's choice, in order: paid first, then gained."""
        self.chosen.append(essence)
        names = [self.screen.session.game.data.counter(e).name() for e in self.chosen]
        self.question.text = f"{self.proposal.text(self.screen.session.game)}  ({', '.join(names)})"

    def apply(self) -> Any:
        result = self.screen.session.confirm(list(self.chosen) or None, source="touch")
        if result is not None and not result.ok:
            self.chosen = []  # refused: its reason is said and shown, the question stays
        return result

    def leave(self) -> None:
        self.screen.session.dismiss()
        self.close()

    def on_touch_down(self, touch) -> bool:
        if not self.collide_point(*touch.pos):
            return False
        if self.proposal_box is not None:
            # The question waits for ✓ or the other button: a touch elsewhere on it does nothing.
            super().on_touch_down(touch)
            return True
        self.close()
        return True

    def close(self) -> None:
        self._timer.cancel()
        if self.parent is not None:
            self.parent.remove_widget(self)
        if self.screen.card_overlay is self:
            self.screen.card_overlay = None
