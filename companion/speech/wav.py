"""Small WAV helpers on the stdlib ``wave`` module: join the pieces of a message spoken by
several voices into one file, and measure a file (duration, loudness) for tests and benches."""

from __future__ import annotations

import math
import sys
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any


class WavError(Exception):
    pass


def _read(path: Path) -> tuple[Any, array]:
    import wave  # with the first message joined, not at start: the window imports this module

    with wave.open(str(path), "rb") as w:
        params = w.getparams()
        if params.sampwidth != 2:
            raise WavError(f"{path}: {params.sampwidth * 8}-bit samples; only 16-bit PCM is handled")
        samples = array("h")
        samples.frombytes(w.readframes(params.nframes))
    if sys.byteorder == "big":  # WAV samples are little-endian on disk
        samples.byteswap()
    return params, samples


def _resample(samples: array, channels: int, src: int, dst: int) -> array:
    """Linear interpolation: enough for speech joined from voices of different rates (MBROLA's
    16 kHz next to espeak-ng's 22.05 kHz) without a dependency."""
    if src == dst or not samples:
        return samples
    frames = len(samples) // channels
    out_frames = max(1, round(frames * dst / src))
    out = array("h", bytes(2 * out_frames * channels))
    step = (frames - 1) / max(1, out_frames - 1)
    for c in range(channels):
        for i in range(out_frames):
            pos = i * step
            j = int(pos)
            frac = pos - j
            a = samples[j * channels + c]
            b = samples[min(j + 1, frames - 1) * channels + c]
            out[i * channels + c] = int(round(a + (b - a) * frac))
    return out


def _to_channels(samples: array, src: int, dst: int) -> array:
    if src == dst:
        return samples
    frames = len(samples) // src
    if dst == 1:  # mix down
        return array("h", (int(sum(samples[f * src:(f + 1) * src]) / src) for f in range(frames)))
    return array("h", (samples[f * src] for f in range(frames) for _ in range(dst)))


def join_wavs(paths: Sequence[str | Path], out: str | Path, gap_seconds: float = 0.12) -> None:
    """Write the WAVs one after the other into ``out``, in the format of the first one, with a
    short silence between pieces (a voice change needs a breath)."""
    if not paths:
        raise WavError("nothing to join")
    first, samples = _read(Path(paths[0]))
    rate, channels = first.framerate, first.nchannels
    gap = array("h", bytes(2 * int(rate * gap_seconds) * channels))
    joined = array("h", samples)
    for p in paths[1:]:
        params, more = _read(Path(p))
        more = _to_channels(more, params.nchannels, channels)
        more = _resample(more, channels, params.framerate, rate)
        joined.extend(gap)
        joined.extend(more)
    if sys.byteorder == "big":
        joined.byteswap()
    import wave

    with wave.open(str(out), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(joined.tobytes())


def wav_stats(path: str | Path) -> tuple[float, float]:
    """(duration in seconds, RMS amplitude from 0 to 1) of a 16-bit WAV."""
    params, samples = _read(Path(path))
    duration = params.nframes / params.framerate if params.framerate else 0.0
    if not samples:
        return duration, 0.0
    rms = math.sqrt(sum(s * s for s in samples) / len(samples)) / 32768.0
    return duration, rms
