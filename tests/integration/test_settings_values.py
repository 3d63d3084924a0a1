"""A settings file that reads well but holds bad values (issue 22, item 3): a speech rate of -5
or "fast", a language "xx", a palette that does not exist, a misspelt key, an unknown section.
Each bad value is named (file, key, what is wrong, what is used instead) in the user's language,
printed and said by the console; the program goes on with that key's default and keeps the good
keys. The window's side is in tests/ui/test_ui_settings_values.py."""

from __future__ import annotations

import configparser
from pathlib import Path

import pytest

from companion import userfiles, usersettings
from tests.cli_run import run_cli
from tests.speech_capture import capture_env, spoken

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[2]

BAD = """[display]
language = xx
text_scale = 1.5
palette = rainbow
[voice]
rate = -5
pitch = fast
volume = 90
verbosity = loud
speed = 3
voice = mb-fr1
[phones]
lan = yes
[extra]
a = 1
"""

# (what the sentence names, the value quoted, the reason, what is used instead) per language.
EXPECTED = {
    "fr": [("Langue ([display] language)", "« xx »", "qui n'est pas l'une des valeurs fr, en",
            "fr (français) est utilisé"),
           ("Contraste ([display] palette)", "« rainbow »", "contrast-dark, contrast-light",
            "contrast-dark (contraste sombre) est utilisé"),
           ("Débit ([voice] rate)", "« -5 »", "hors de l'intervalle de 80 à 450", "165 est utilisé"),
           ("Hauteur de la voix ([voice] pitch)", "« fast »", "ce n'est pas un nombre", "50 est utilisé"),
           ("([voice] verbosity)", "« loud »", "short, normal, full", "normal est utilisé"),
           ("la clé [voice] speed est inconnue", "", "", "elle est ignorée"),
           ("([phones] lan)", "« yes »", "ce n'est ni 0 (non) ni 1 (oui)", "0 (non) est utilisé"),
           ("la section [extra] est inconnue", "", "", "elle est ignorée")],
    "en": [("Language ([display] language)", "“xx”", "which is not one of fr, en", "fr (French) is used instead"),
           ("Contrast ([display] palette)", "“rainbow”", "contrast-dark, contrast-light",
            "contrast-dark (dark contrast) is used instead"),
           ("Rate ([voice] rate)", "“-5”", "outside 80 to 450", "165 is used instead"),
           ("Voice pitch ([voice] pitch)", "“fast”", "which is not a number", "50 is used instead"),
           ("Verbosity ([voice] verbosity)", "“loud”", "short, normal, full", "normal is used instead"),
           ("the key [voice] speed is unknown", "", "", "it is ignored"),
           ("Players' phones ([phones] lan)", "“yes”", "neither 0 (no) nor 1 (yes)", "0 (no) is used instead"),
           ("the section [extra] is unknown", "", "", "it is ignored")],
}


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_each_bad_value_is_named_with_its_key_its_fault_and_the_value_used(tmp_path: Path, monkeypatch,
                                                                          lang: str) -> None:
    monkeypatch.setenv("COMPANION_HOME", str(tmp_path))
    monkeypatch.delenv("COMPANION_LANG", raising=False)
    path = userfiles.settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(BAD)
    found = userfiles.settings_problems(lang=lang)
    assert len(found) == len(EXPECTED[lang]), found
    for sentence, parts in zip(found, EXPECTED[lang], strict=True):
        assert str(path) in sentence, sentence
        for part in parts:
            assert part in sentence, (part, sentence)
    # The good keys are not named.
    assert not any("text_scale" in s or "volume" in s or "mb-fr1" in s for s in found), found
    path.write_text("[display]\nlanguage = en\ntext_scale = 1.25\n[voice]\nrate = 200.5\n[phones]\nlan = 1\n")
    assert userfiles.settings_problems(lang=lang) == []


def test_a_bad_value_falls_back_to_its_default_and_the_good_keys_are_kept() -> None:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(BAD)
    bad = usersettings.repair(parser)
    assert {(b.section, b.key) for b in bad} >= {("voice", "rate"), ("display", "language"), ("phones", "lan")}
    assert parser.get("voice", "rate") == "165" and parser.get("voice", "pitch") == "50"
    assert parser.get("display", "palette") == "contrast-dark" and parser.get("voice", "verbosity") == "normal"
    assert parser.get("phones", "lan") == "0"
    assert parser.get("display", "language") in ("fr", "en")  # the program's own: --lang, COMPANION_LANG or fr
    # kept as written
    assert parser.get("display", "text_scale") == "1.5" and parser.get("voice", "volume") == "90"
    assert parser.get("voice", "voice") == "mb-fr1" and parser.get("voice", "speed") == "3"
    assert usersettings.bad_values(parser) == [b for b in bad if b.rule is None]  # only the unknown ones remain


def test_a_long_bad_value_is_shortened_never_the_reason() -> None:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string("[voice]\nrate = " + "9" * 5000 + "\n")
    (bad,) = usersettings.bad_values(parser)
    sentence = bad.describe("/x/companion.ini", "en")
    assert "outside 80 to 450; 165 is used instead. Fix this line or delete it." in sentence
    assert len(sentence) < 300


@pytest.mark.parametrize("value", ["nan", "inf", "1e400", "", "80 km/h"])
def test_numbers_that_are_not_numbers_a_person_means(value: str) -> None:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(f"[voice]\nrate = {value}\npitch = 0\nvolume = 200\n")
    assert [(b.key, b.value) for b in usersettings.bad_values(parser)] == [("rate", value)]


def test_the_console_prints_and_says_each_bad_setting_in_the_users_language(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "companion.ini").write_text(BAD)
    env, log = capture_env(tmp_path)
    overrides: dict[str, str | None] = {**env, "COMPANION_HOME": str(home), "COMPANION_LANG": None}
    done = run_cli("console", "--game", "vtes", "--players", "Ann,Bob", "--journal", str(tmp_path / "games.sqlite3"),
                   "--speak", cwd=ROOT, stdin="pool 1 -2\n", env=overrides)  # in this process (tests.cli_run)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "Ann : réserve -2, maintenant 28." in done.stdout  # and the game goes on
    for named, value, why, used in EXPECTED["fr"]:
        line = next((x for x in done.stderr.splitlines() if named in x), "")
        assert value in line and why in line and used in line, (named, done.stderr)
    said = [text for voice, text in spoken(log) if "companion.ini" in text]
    assert said and all(voice.startswith("fr") for voice, text in spoken(log) if "companion.ini" in text)
    heard = " ".join(said)
    for word in ("Débit", "fast", "rainbow", "speed", "extra", "utilisé à la place"):
        assert word in heard, (word, heard)


def test_the_settings_know_the_voices_backends_and_verbosities() -> None:
    from companion.speech.backends import BACKENDS
    from companion.speech.phrases import VERBOSITIES

    assert usersettings.BACKENDS == ("auto", *BACKENDS) and usersettings.VERBOSITIES == VERBOSITIES
