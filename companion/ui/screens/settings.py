"""The Settings screen: Kivy's settings panel over the app's companion.ini — readers, voice
(backend, voice, rate, verbosity), language, contrast palette and text size.

Text size, palette, language, rate and verbosity apply at once; a new voice backend or new
reader paths apply at the next start (the panel says so)."""

from __future__ import annotations

import functools
import json
import logging
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.properties import ObjectProperty, StringProperty
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen
from kivy.uix.scrollview import ScrollView
from kivy.utils import escape_markup, get_hex_from_color

from companion import i18n, usersettings
from companion.i18n import t
from companion.ui.screens import load_kv
from companion.ui.theme import PALETTES, TEXT_SCALE_MAX, TEXT_SCALE_MIN, theme
from companion.usersettings import BACKENDS, VERBOSITIES

log = logging.getLogger(__name__)

TEXT_SCALES = ("1.0", "1.25", "1.5", "1.75", "2.0")
DEFAULTS: dict[str, dict[str, str]] = usersettings.defaults()  # the keys; set_defaults reads them afresh


class SettingHeading(Label):
    """A section of the settings panel in the app's type and colours (Kivy's title is dimmed)."""

    title = StringProperty("")
    panel = ObjectProperty(None, allownone=True)


@functools.cache
def setting_words() -> type:
    """The panel's kind of setting for a few values (kivy.uix.settings is imported only when the
    panel is first made: it costs 30 ms of the window's start here)."""
    from kivy.uix.settings import SettingOptions

    class SettingWords(SettingOptions):
        """A setting with a few values, shown and offered in words ("français", "contraste sombre",
        "125 %"), as the listener hears them; Kivy's own shows the values companion.ini holds ("fr",
        "contrast-dark", "1.25"), words a player does not use."""

        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            # Kivy's rule puts a Label bound to ``value`` in the row; the words are bound after it,
            # so that they win at every change.
            shown = [w for w in self.content.children if isinstance(w, Label)]
            if shown:
                self._shown = shown[0]
                self._shown.halign = "center"
                # Words wrap in the value's column ("contraste sombre" at 150 % on a 480-wide
                # screen ran off it): Kivy's label is one line, as wide as its text.
                self._shown.fbind("width", self._wrap)
                self.fbind("value", self._show)
                self._show()
                self._wrap()

        def _show(self, *_args: Any) -> None:
            from companion.ui.a11y import setting_value_words

            self._shown.text = setting_value_words(str(self.value or ""), str(self.key or ""))

        def _wrap(self, *_args: Any) -> None:
            self._shown.text_size = (max(1, self._shown.width - theme.gap), None)

        def _create_popup(self, instance: Any) -> None:
            from kivy.uix.togglebutton import ToggleButton

            from companion.ui.a11y import setting_value_words

            super()._create_popup(instance)
            for button in self.popup.content.children:
                if isinstance(button, ToggleButton):
                    button.option = button.text  # what _set_option writes to the config
                    button.text = setting_value_words(button.text, str(self.key or ""))

        def _set_option(self, instance: Any) -> None:
            self.value = getattr(instance, "option", instance.text)
            self.popup.dismiss()

    return SettingWords


def _live_app() -> Any:
    """The app that is showing a window; a stopped app stays Kivy's "running app" until another
    starts, and its config must not swallow the changes."""
    app = App.get_running_app()
    return app if app is not None and getattr(app, "root", None) is not None else None


def set_defaults(config: Any) -> None:
    """The settings a fresh companion.ini starts with (App.build_config)."""
    for section, values in usersettings.defaults().items():  # the language of now, not of the import
        config.setdefaults(section, dict(values))


def panel_json() -> str:
    """One panel, titled sections: Kivy's sidebar would take a third of the 800x480 screen."""
    items: list[dict[str, Any]] = [
        {"type": "heading", "title": t("settings.display")},
        {"type": "options", "title": t("settings.text_scale"), "desc": t("settings.text_scale.desc"),
         "section": "display", "key": "text_scale", "options": list(TEXT_SCALES)},
        {"type": "options", "title": t("settings.palette"), "desc": t("settings.palette.desc"),
         "section": "display", "key": "palette", "options": list(PALETTES)},
        {"type": "options", "title": t("settings.language"), "desc": t("settings.language.desc"),
         "section": "display", "key": "language", "options": list(i18n.LANGUAGES)},
        {"type": "heading", "title": t("settings.voice")},
        {"type": "options", "title": t("settings.verbosity"), "desc": t("settings.verbosity.desc"),
         "section": "voice", "key": "verbosity", "options": list(VERBOSITIES)},
        {"type": "numeric", "title": t("settings.rate"), "desc": t("settings.rate.desc"),
         "section": "voice", "key": "rate"},
        {"type": "numeric", "title": t("settings.pitch"), "desc": t("settings.pitch.desc"),
         "section": "voice", "key": "pitch"},
        {"type": "numeric", "title": t("settings.volume"), "desc": t("settings.volume.desc"),
         "section": "voice", "key": "volume"},
        {"type": "options", "title": t("settings.backend"), "desc": t("settings.backend.desc"),
         "section": "voice", "key": "backend", "options": list(BACKENDS)},
        {"type": "string", "title": t("settings.voice_name"), "desc": t("settings.voice_name.desc"),
         "section": "voice", "key": "voice"},
        {"type": "heading", "title": t("settings.readers")},
        {"type": "string", "title": t("settings.reader_paths"), "desc": t("settings.reader_paths.desc"),
         "section": "readers", "key": "paths"},
        {"type": "heading", "title": t("phones.setting")},
        {"type": "bool", "title": t("phones.setting"), "desc": t("phones.setting.desc"),
         "section": "phones", "key": "lan"},
    ]
    return json.dumps(items)


def add_panel(settings: Any, config: Any) -> None:
    """The companion's panel on a Kivy Settings widget (the app's F1 panel, or this screen)."""
    load_kv("card")
    load_kv("settings")
    settings.register_type("heading", SettingHeading)
    settings.register_type("options", setting_words())
    settings.add_json_panel(t("settings.title"), config, data=panel_json())


def text_scale(value: str) -> float:
    try:
        return max(TEXT_SCALE_MIN, min(TEXT_SCALE_MAX, float(value)))
    except (TypeError, ValueError):
        return 1.0  # a hand-edited file with a typo must not stop the app


def apply_setting(section: str, key: str, value: str, voice: Any = None) -> bool:
    """Apply one setting now; False when it only takes effect at the next start."""
    if section == "display" and key == "text_scale":
        theme.text_scale = text_scale(value)
    elif section == "display" and key == "palette":
        theme.use_palette(value)
    elif section == "display" and key == "language":
        if value in i18n.LANGUAGES:
            i18n.set_language(value)
            if voice is not None and hasattr(voice, "lang"):
                voice.lang = value
    elif section == "voice" and key == "rate":
        try:
            rate = int(float(value))
        except (TypeError, ValueError):
            return False
        if voice is not None and hasattr(voice, "configure"):
            voice.configure(rate=rate)  # kept for a speaker not made yet, applied to one that is
    elif section == "voice" and key in ("pitch", "volume"):
        try:
            amount = int(float(value))
        except (TypeError, ValueError):
            return False
        if voice is not None and hasattr(voice, "configure"):
            voice.configure(**{key: amount})
    elif section == "voice" and key == "verbosity":
        if voice is not None and value in VERBOSITIES:
            voice.verbosity = value
    else:
        return False
    return True


def apply_all(config: Any, voice: Any = None) -> None:
    for section, values in DEFAULTS.items():
        for key in values:
            if config.has_option(section, key):
                apply_setting(section, key, config.get(section, key), voice)


class SettingsScreen(Screen):
    config = ObjectProperty(None, allownone=True)
    session = ObjectProperty(None, allownone=True)

    def __init__(self, **kwargs) -> None:
        load_kv("card")
        load_kv("settings")
        kwargs.setdefault("name", "settings")
        super().__init__(**kwargs)
        self._panel = None
        self._built: tuple | None = None
        theme.bind(base=self._restyle, text_scale=self._restyle, palette=self._restyle, font_name=self._restyle)

    def relabel(self) -> None:
        """The language changed: the panel is made again in it (after the option's own popup
        has closed, on the next frame)."""
        if self._panel is not None:
            Clock.schedule_once(lambda _dt: self.build())

    def bind_session(self, session: Any) -> None:
        self.session = session

    def on_pre_enter(self, *_args) -> None:
        if self.config is None:
            app = _live_app()
            self.config = getattr(app, "config", None)
        if self._panel is not None and self._same(self._built, self._shows()):
            # The panel made at the last visit shows these very values, in this language: made
            # again it is the same panel (a fifth of a second of CPU a visit here, more on a Pi).
            # Shown from its top, its scroll bar lit then fading, as a panel just made is.
            for widget in self._panel.walk(restrict=True):
                if isinstance(widget, ScrollView):
                    widget.scroll_y = 1
                    widget.update_from_scroll()
            return
        self.build()

    def _shows(self) -> tuple | None:
        """What a panel made now would show: its config, its words, the config's values, and the
        type it is styled in (its rows' heights only grow when restyled in place)."""
        if self.config is None:
            return None
        set_defaults(self.config)
        values = {section: dict(self.config.items(section)) for section in self.config.sections()}
        style = (theme.base, theme.text_scale, theme.palette, theme.font_name)
        return self.config, panel_json(), values, style

    @staticmethod
    def _same(one: tuple | None, other: tuple | None) -> bool:
        return one is not None and other is not None and one[0] is other[0] and one[1:] == other[1:]

    def build(self) -> None:
        """Build the panel over ``config`` (the running app's, or one given by a test)."""
        from kivy.config import ConfigParser
        from kivy.uix.settings import SettingsWithNoMenu

        if self.config is None:
            # Unnamed: Kivy keeps named parsers for the whole process, and a second window in
            # one process (a test, the app started again) could not make its own.
            self.config = ConfigParser()
        self._built = self._shows()
        holder = self.ids.holder
        holder.clear_widgets()
        panel = SettingsWithNoMenu()
        add_panel(panel, self.config)
        panel.bind(on_config_change=self._changed)
        holder.add_widget(panel)
        self._panel = panel
        self._restyle()

    def _changed(self, _panel: Any, config: Any, section: str, key: str, value: str) -> None:
        app = _live_app()
        on_change = getattr(app, "on_config_change", None) if app is not None else None
        if callable(on_change) and getattr(app, "config", None) is config:
            return  # the app hears Kivy's settings itself and applies them
        apply_setting(section, key, value, getattr(self.session, "voice", None))

    def _restyle(self, *_args) -> None:
        """Kivy's settings are drawn in its own small grey type: give them the app's font, size
        and contrast, so that they follow the text size and the palette like the other screens."""
        from kivy.uix.settings import SettingItem, SettingsPanel

        if self._panel is None:
            return
        muted = get_hex_from_color(theme.muted)
        for widget in list(self._panel.walk(restrict=True)):
            if isinstance(widget, SettingHeading):
                continue
            if isinstance(widget, SettingItem):
                label = widget.ids.get("labellayout")
                if label is not None:
                    label.font_name = theme.font_name
                    label.font_size = theme.body
                    label.color = theme.text
                    small = int(theme.small)
                    label.text = "{}\n[size={}][color={}]{}[/color][/size]".format(
                        escape_markup(widget.title or ""), small, muted, escape_markup(widget.desc or ""))
                widget.height = max(widget.height, theme.base * 2.6)
            elif isinstance(widget, Label) and isinstance(widget.parent, SettingsPanel):
                widget.parent.remove_widget(widget)  # the panel's name: the header already says it
            elif isinstance(widget, Label):
                widget.font_name = theme.font_name
                widget.font_size = theme.body
                widget.color = theme.text
