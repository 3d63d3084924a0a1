"""``python -m companion speak REF``: say a card aloud, or write what would be said to a WAV."""

from __future__ import annotations

import argparse

from companion import registry
from companion.commands.args import whole_number

VERBOSITIES = ("short", "normal", "full")


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("ref", help=f"card reference ({registry.example_ref()}) or exact card name")
    p.add_argument("--verbosity", choices=VERBOSITIES, default="normal",
                   help="short: name and cost; normal: the whole card; full: also flavour and rulings")
    # SUPPRESS keeps the top-level --lang when this one is not given.
    p.add_argument("--lang", choices=("fr", "en"), default=argparse.SUPPRESS,
                   help="language of the words around the card (default fr)")
    p.add_argument("--wav", metavar="FILE", help="write the speech to this WAV file instead of playing it")
    p.add_argument("--print", dest="print_text", action="store_true", help="also print what is said")
    p.add_argument("--backend", choices=("auto", "espeak", "say", "windows", "silent"), default="auto",
                   help="voice engine (default: the platform's)")
    p.add_argument("--rate", type=whole_number(80, 450), default=165, help="words per minute (default 165)")
    p.add_argument("--pitch", type=whole_number(0, 100), default=50, help="0 to 100 (default 50)")
    p.add_argument("--volume", type=whole_number(0, 200), default=100, help="percent, 0 to 200 (default 100)")
    p.add_argument("--voice", default=None, help="engine voice name (default: one per language)")


def _find(ref: str):
    """The card and its game's data (for type names and the glossary), or (None, None)."""
    from companion.cards.library import CardLibrary

    library = CardLibrary()
    card = library.lookup(ref)
    return card, (library.game(card.game) if card is not None else None)


def run(args: argparse.Namespace) -> int:
    import sys

    from companion import i18n
    from companion.i18n import t
    from companion.speech import Priority, Speaker, VoiceSettings, card_speech, make_backend

    lang = getattr(args, "lang", None) or i18n.language()
    card, game = _find(args.ref)
    if card is None:
        print(t("speak.unknown", lang, ref=args.ref, example=registry.example_ref()), file=sys.stderr)
        return 2
    utterances = card_speech(card, verbosity=args.verbosity, lang=lang, game=game)
    if args.print_text:
        for u in utterances:
            print(f"[{u.lang}] {u.text}")
    settings = VoiceSettings(rate=args.rate, pitch=args.pitch, volume=args.volume, voice=args.voice)
    if args.wav:
        # A file makes no sound: COMPANION_SPEECH=silent does not stop it being written.
        backend = make_backend(args.backend, respect_env=False)
        with Speaker(backend, settings, lang=lang) as speaker:
            if not speaker.can_render:
                print(t("speak.no_wav", lang, backend=backend.name), file=sys.stderr)
                return 1
            if not speaker.render_wav(utterances, lang, args.wav):
                print(t("speak.wav_failed", lang, path=args.wav), file=sys.stderr)
                return 1
        print(t("speak.wrote", lang, path=args.wav), file=sys.stderr)
        return 0
    with Speaker(make_backend(args.backend), settings, lang=lang) as speaker:
        speaker.say_all(utterances, Priority.CARD)
        try:
            speaker.wait_idle()
        except KeyboardInterrupt:
            speaker.stop()
            return 130
    return 0
