"""docs/keys.md, written from the key map: ``python -m companion.play.keys_doc > docs/keys.md``
(a test checks that the file matches the data)."""

from __future__ import annotations

from companion import registry
from companion.play.keymap import KeyMap, game_verbs, load_keymap
from companion.play.keynames import LANGS


def markdown(keymap: KeyMap | None = None) -> str:
    """One table per screen, keyboard and keypad side by side, fr and en."""
    keymap = keymap or load_keymap()
    out = ["# Keys and keypad / Touches et pavé numérique", "",
           "Generated from `companion/play/keymap.yaml` by `python -m companion.play.keys_doc` "
           "(a test checks that this file matches the data). Press **H** on any screen to hear "
           "its keys; with a numeric keypad alone, press **/** twice.", "",
           "Généré depuis `companion/play/keymap.yaml`. Appuyez sur **H** pour entendre les touches "
           "de l'écran ; au pavé numérique seul, deux fois sur **/**.", "",
           "In the console companion (`python -m companion console --game ...`), type a keypad "
           "sequence then Enter: `*` next phase, `/2` seat 2, `-` minus one, `/73` bleed 3, `7` undo. "
           "Dans la console, tapez les touches du pavé puis Entrée.", ""]
    for screen in keymap.screens.values():
        if not screen.raw:
            continue
        out += [f"## {screen.name['en']} / {screen.name['fr']}", "",
                f"{screen.shows['en']} — {screen.shows['fr']}", "",
                "| Keyboard | Keypad | Action | Action (fr) | Games |", "|---|---|---|---|---|"]
        for b in screen.raw:
            rng = b.get("n")
            n_text = f"{rng[0]}–{rng[1]}" if rng else None

            def keys(specs: list[str], n_text: str | None = n_text) -> str:
                if not specs:
                    return "—"
                shown = [keymap.key_words(tuple(s.split()), "en").replace("{n}", n_text or "") for s in specs]
                return " / ".join(f"`{x}`" for x in shown)

            words = {lang: keymap.actions[b["action"]][lang].format(n=n_text or "") for lang in LANGS}
            games = ", ".join(g for g in registry.ids() if b["verb"] in game_verbs(g)) if b.get("verb") else "all"
            out.append(f"| {keys(b.get('keys') or [])} | {keys(b.get('keypad') or [])} | {words['en']} "
                       f"| {words['fr']} | {games} |")
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    print(markdown())
