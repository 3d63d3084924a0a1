"""The voice settings reach what is said: verbosity and language change how the next card is
spoken, the rate reaches the speaker, whether it was made before or after the setting."""

from companion.cards.library import CardLibrary
from companion.games.vtes import cards as vtes
from companion.play.voice import Voice
from companion.readers.events import TagEvent
from companion.tags.resolve import Resolver
from companion.ui.screens.settings import apply_setting

# krcg 5 (Python 3.12+) ships Govern the Unaligned's official French text: a French listener hears it.
FRENCH = vtes.krcg_major() >= 5
GOVERN_FR, STEALTH_FR = ("Diriger les indécis", "discrétion") if FRENCH else ("Govern the Unaligned", "stealth")


def _scan(ref: str = "vtes:100845"):
    from companion.tags.records import encode_ref

    return Resolver(CardLibrary(), {}).resolve(TagEvent("laid", "sim", uid="04AA", ndef=encode_ref(ref)))


def _said(voice: Voice) -> str:
    assert voice.wait_idle(10)
    return " ".join(u.text for u in voice.speaker().history[-1])


def test_verbosity_and_language_apply_to_the_next_card() -> None:
    voice = Voice(lang="fr")
    try:
        assert apply_setting("voice", "rate", "220", voice)  # before any speaker exists
        voice.scan(_scan())
        normal = _said(voice)
        assert GOVERN_FR in normal and STEALTH_FR in normal
        assert voice.speaker().rate == 220
        apply_setting("voice", "verbosity", "short", voice)
        voice.scan(_scan())
        short = _said(voice)
        assert GOVERN_FR in short and STEALTH_FR not in short and len(short) < len(normal)
        apply_setting("display", "language", "en", voice)
        voice.scan(_scan())
        english = _said(voice)
        assert english != short and "Govern the Unaligned" in english
        apply_setting("voice", "rate", "140", voice)  # after: the running speaker follows
        assert voice.speaker().rate == 140
        assert apply_setting("voice", "pitch", "70", voice) and apply_setting("voice", "volume", "500", voice)
        assert voice.speaker().settings.pitch == 70
        assert voice.speaker().settings.volume == 200  # clamped to what the engines accept
    finally:
        from companion import i18n

        i18n.set_language("fr")
        voice.close()
