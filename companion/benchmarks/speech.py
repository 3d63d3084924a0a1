"""``python -m companion bench speech``: from a scan to the first audio sample, p95 under 50 ms.

A scan is measured from the moment the resolved card reaches speech: its phrases are built,
espeak-ng is started, and the clock stops when the engine hands over its first samples (read
from its standard output, which is what would go to the audio device). The words of speech are
read first, as the app's start does (``phrases.prepare``). Each sample is read on the clocks of
``benchmarks.clocks`` (the engine's own CPU time and waits included); the budget is judged on
the unshared p95.
"""

from __future__ import annotations

from typing import Any

BUDGET_P95_MS = 50.0  # DESIGN.md: card resolved → first audio sample, p95


def bench_speech(runs: int = 30, ref: str | None = None) -> dict[str, Any]:
    """``ref``: the card spoken (default: the first shipped game's demo card)."""
    from companion import registry
    from companion.benchmarks import clocks
    from companion.cards.library import CardLibrary
    from companion.speech import VoiceSettings, card_speech, game_info
    from companion.speech.backends import EspeakBackend, SpeechError
    from companion.speech.phrases import prepare

    try:
        backend = EspeakBackend()
    except SpeechError as exc:
        return {"ok": False, "error": str(exc)}
    ref = ref or registry.example_ref()
    library = CardLibrary()
    card = library.get(ref)
    if card is None:
        return {"ok": False, "error": f"no card {ref}"}
    settings = VoiceSettings()
    game = game_info(card.game)
    prepare()
    before = clocks.machine()
    samples = []
    for _ in range(runs):
        clock = clocks.Clock()
        stopped: list[dict[str, float | None]] = []
        clock.start()
        first = card_speech(card, "normal", "fr", game=game)[0]
        backend.first_audio_seconds(first, settings,
                                    at_first_audio=lambda pid, c=clock, out=stopped: out.append(c.stop([pid])))
        samples.append(stopped[0])
    result = clocks.judge(samples, BUDGET_P95_MS, "p95_ms", before)
    return {**result, "what": "scan to first audio sample (espeak-ng)"}
