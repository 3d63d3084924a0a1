"""``python -m companion bench speech``: from a scan to the first audio sample, p95 under 50 ms.

A scan is measured from the moment the resolved card reaches speech: its phrases are built,
espeak-ng is started, and the clock stops when the engine hands over its first samples (read
from its standard output, which is what would go to the audio device).
"""

from __future__ import annotations

import statistics
import time
from typing import Any

BUDGET_P95 = 0.050  # DESIGN.md: card resolved → first audio sample, p95


def bench_speech(runs: int = 30, ref: str | None = None) -> dict[str, Any]:
    """``ref``: the card spoken (default: the first shipped game's demo card)."""
    from companion import registry
    from companion.cards.library import CardLibrary
    from companion.speech import VoiceSettings, card_speech, game_info
    from companion.speech.backends import EspeakBackend, SpeechError

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
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        first = card_speech(card, "normal", "fr", game=game)[0]
        backend.first_audio_seconds(first, settings)
        times.append(time.perf_counter() - start)
    times.sort()
    p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
    return {
        "ok": p95 < BUDGET_P95,
        "what": "scan to first audio sample (espeak-ng)",
        "runs": runs,
        "median_ms": round(statistics.median(times) * 1000, 1),
        "p95_ms": round(p95 * 1000, 1),
        "budget_p95_ms": BUDGET_P95 * 1000,
    }
