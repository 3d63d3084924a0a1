"""What the key controller acts on (its ``Host``, companion/play/keys.py): the core Session a
table plays through (``SessionHost``), and the screens of a front end (a ``Navigator``; the
console has only the table, ``TableOnly``; the window's is companion/ui/a11y.py's)."""

from __future__ import annotations

from typing import Any, Protocol

from companion.play.keymap import load_keymap


class Navigator(Protocol):
    """The screens of a front end, as the keys see them (the console has only the table)."""

    @property
    def screen(self) -> str: ...

    def go(self, screen: str) -> bool: ...

    def back(self) -> bool: ...

    def quit(self) -> None: ...

    def screen_names(self) -> list[str]: ...

    def show_cursor(self, seat: int | None, counter: str | None) -> None: ...


class TableOnly:
    """The navigator of a front end with one view, the table (the console)."""

    screen = "table"

    def __init__(self, on_quit: Any = None) -> None:
        self.on_quit = on_quit

    def go(self, screen: str) -> bool:
        return screen == "table"

    def back(self) -> bool:
        return False

    def quit(self) -> None:
        if callable(self.on_quit):
            self.on_quit()

    def screen_names(self) -> list[str]:
        return ["table"]

    def show_cursor(self, seat: int | None, counter: str | None) -> None:
        pass


class SessionHost:
    """The keys' host: table commands are the core Session's intents (source "key"); screens are
    the front end's navigator's."""

    def __init__(self, session: Any, navigator: Navigator | None = None, judge: Any = None,
                 venue: Any = None) -> None:
        self.session = session  # companion.play.session.Session
        self.navigator = navigator if navigator is not None else TableOnly()
        self.judge = judge or (lambda: False)  # the Runtime's call_judge: a judge to the table (a venue)
        self.venue = venue  # the Runtime: the venue's result (pending, asked, confirmed, contested)

    @property
    def result_pending(self) -> Any:
        return self.venue.result_pending() if self.venue is not None else None

    def ask_result(self) -> Any:
        return self.venue.ask_result() if self.venue is not None else None

    def confirm_result(self) -> Any:
        return self.venue.venue_action(None, "confirm_result", source="key") if self.venue is not None else None

    def contest_result(self) -> Any:
        return self.venue.venue_action(None, "contest_result", source="key") if self.venue is not None else None

    def close_overlay(self) -> bool:
        """What opened over the screen (the result shown, a seat's menu) closed by Escape."""
        close = getattr(self.navigator, "close_overlay", None)
        return bool(callable(close) and close())

    @property
    def game(self) -> Any:
        return self.session.game

    @property
    def selected_seat(self) -> int | None:
        return self.session.selected_seat

    def select_seat(self, seat: int | None) -> None:
        self.session.select_seat(seat)

    @property
    def screen(self) -> str:
        return self.navigator.screen

    def run(self, words: str) -> Any:
        return self.session.apply(words, source="key")

    def go(self, screen: str) -> bool:
        return self.navigator.go(screen)

    def back(self) -> bool:
        return self.navigator.back()

    def quit(self) -> None:
        self.navigator.quit()

    def screen_names(self) -> list[str]:
        names = self.navigator.screen_names()
        return [n for n in load_keymap().screen_order if n in names] or names

    def last_card(self) -> Any:
        return self.session.last_card

    @property
    def proposal(self) -> Any:
        return self.session.proposal

    def confirm(self) -> Any:
        return self.session.confirm(source="key")

    def dismiss(self) -> bool:
        return self.session.dismiss()

    def show_cursor(self, seat: int | None, counter: str | None) -> None:
        if counter is not None:
            self.navigator.show_cursor(seat, counter)
