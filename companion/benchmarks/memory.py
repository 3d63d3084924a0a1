"""Resident memory of a running process, its software renderer's share told apart from ours.

The design's memory budget is for a device that renders with its GPU. A machine with no GPU
draws through Mesa's software renderer (llvmpipe: the ``swrast`` driver and libLLVM), which
keeps in the process what a GPU keeps in its own memory: vertex buffers, textures, compiled
shaders. That share is measured, never assumed, in two parts:

- its code and data mapped from its files: the ``Rss`` of those mappings in /proc/PID/smaps;
- its heap: the bytes still allocated at that moment by code of those libraries, as heaptrack
  (a heap profiler that records the call stack of every malloc) reports them when its recording
  stops right there (``stop_heap_profiler``) and the process ends without freeing anything
  (``heaptrack_print --print-leaks``: what was never freed, by the library that allocated it).

What heaptrack counts is allocated bytes, not resident pages; so that an allocation never
touched is not taken off our figure, the renderer's heap is counted as resident only as far as
the anonymous resident memory can hold all the heap in use (glibc's ``mallinfo2``) and Python's
own arenas: any shortfall is charged to the renderer, i.e. added back to ours. The profiler's
own heap (in use per glibc, not recorded by itself) is not ours either and is taken off.
"""

from __future__ import annotations

import ctypes
import re
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

# Mesa's software renderer: the classic and gallium drivers and the LLVM it compiles shaders with.
SOFTWARE_GL = ("swrast_dri", "kms_swrast", "llvmpipe", "libgallium", "libLLVM")


def is_software_gl(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return any(part in name for part in SOFTWARE_GL)


def smaps(pid: int | str = "self") -> dict[str, Any]:
    """The process's resident memory in kB (see ``parse_smaps``)."""
    with open(f"/proc/{pid}/smaps", encoding="utf-8", errors="replace") as f:
        return parse_smaps(f)


def parse_smaps(lines: Iterable[str]) -> dict[str, Any]:
    """Resident memory in kB from /proc/PID/smaps: all, anonymous, and the software renderer's
    file mappings; and whether its libraries are loaded at all."""
    rss = anon = gl_files = 0
    gl_loaded = False
    path = ""
    for line in lines:
        first = line.split(maxsplit=1)[0] if line.strip() else ""
        if not first:
            continue
        if not first.endswith(":"):  # a mapping's header: address perms offset dev inode [path]
            fields = line.split(maxsplit=5)
            path = fields[5].strip() if len(fields) == 6 else ""
            if path.startswith("/") and is_software_gl(path):
                gl_loaded = True
        elif first == "Rss:":
            kb = int(line.split()[1])
            rss += kb
            if path.startswith("/") and is_software_gl(path):
                gl_files += kb
        elif first == "Anonymous:":
            anon += int(line.split()[1])
    return {"rss_kb": rss, "anon_kb": anon, "software_gl_files_kb": gl_files, "software_gl_loaded": gl_loaded}


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]


def malloc_in_use() -> int | None:
    """Bytes the C heap has handed out and not had back (glibc; None elsewhere)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        fn = ctypes.CDLL(None).mallinfo2
    except (OSError, AttributeError):  # musl, or glibc before 2.33
        return None
    fn.restype = _Mallinfo2
    info = fn()
    return int(info.uordblks + info.hblkhd)


def python_arenas() -> int | None:
    """Bytes of the arenas Python's small-object allocator holds (mapped apart from the C heap).
    sys._debugmallocstats writes them to the C-level stderr: read there through a temp file."""
    import os
    import tempfile

    if not hasattr(sys, "_debugmallocstats"):
        return None
    sys.stderr.flush()
    with tempfile.TemporaryFile() as tmp:
        saved = os.dup(2)
        try:
            os.dup2(tmp.fileno(), 2)
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        tmp.seek(0)
        text = tmp.read().decode("ascii", "replace")
    found = re.search(r"^\d+ arenas \* \d+ bytes/arena\s*=\s*([\d,]+)", text, re.M)
    return int(found.group(1).replace(",", "")) if found else None


# heaptrack_print's sizes are decimal: "512B", "130.11M" (1.4) or "130.11MB" (later versions).
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)([KMGT]?)B? leaked over \d+ calls from$")
_UNITS = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


@dataclass
class HeapShare:
    live: int  # bytes allocated and not freed, all sites
    software_gl: int  # of which allocated by code of the software renderer
    by_module: dict[str, int]  # the largest holders, by the library of the allocating code


def parse_heaptrack_leaks(text: str) -> HeapShare:
    """``heaptrack_print --print-leaks`` (merged backtraces): each site's line ``<size> leaked
    over <n> calls from`` is followed by its frame and ``in <library>``; the sub-backtraces under
    it end their line with ``from:`` and are not counted again."""
    lines = text.splitlines()
    by_module: dict[str, float] = {}
    for i, line in enumerate(lines):
        found = _SIZE.match(line)
        if not found:
            continue
        size = float(found.group(1)) * _UNITS[found.group(2)]
        module = "?"
        for follow in lines[i + 1:i + 4]:
            follow = follow.strip()
            if follow.startswith("in "):
                module = follow[3:].rsplit("/", 1)[-1]
                break
        by_module[module] = by_module.get(module, 0) + size
    live = sum(by_module.values())
    gl = sum(v for k, v in by_module.items() if is_software_gl(k))
    top = dict(sorted(((k, int(v)) for k, v in by_module.items()), key=lambda kv: -kv[1])[:6])
    return HeapShare(live=int(live), software_gl=int(gl), by_module=top)


def stop_heap_profiler() -> bool:
    """Under heaptrack, have it write out what it still buffers and stop recording, through its
    own API (``heaptrack_stop``, heaptrack_api.h): its report then ends at this moment, what is
    allocated now reported as never freed. Ended by os._exit otherwise, its last buffer of
    events would be lost. False when this process is not profiled."""
    try:
        stop = getattr(ctypes.CDLL(None), "heaptrack_stop", None)
    except OSError:
        return False
    if stop is None:
        return False
    stop()
    return True


def heaptrack_share(data_file: str) -> HeapShare:
    out = subprocess.run(["heaptrack_print", "-f", data_file, "--print-leaks", "1", "--print-peaks", "0",
                          "--print-allocators", "0", "--print-temporary", "0", "--peak-limit", "100000000",
                          "--sub-peak-limit", "0"], capture_output=True, text=True, timeout=300, check=True)
    return parse_heaptrack_leaks(out.stdout)


def without_software_gl(reading: dict[str, Any], heap: HeapShare | None) -> dict[str, Any]:
    """Our resident memory in MB from one reading (``smaps`` + ``malloc_in_use`` + ``python_arenas``
    taken at the same moment) and, when the renderer's heap was profiled in that same process,
    its share; every term is said in the result."""
    mb = 1 / 1024
    rss = reading["rss_kb"] * mb
    files = reading["software_gl_files_kb"] * mb
    in_use = reading.get("malloc_in_use")
    arenas = reading.get("python_arenas")
    out: dict[str, Any] = {"rss_mb": round(rss, 1), "anonymous_mb": round(reading["anon_kb"] * mb, 1),
                           "heap_in_use_mb": None if in_use is None else round(in_use / 2**20, 1),
                           "python_arenas_mb": None if arenas is None else round(arenas / 2**20, 1),
                           "software_gl_files_mb": round(files, 1)}
    if heap is None:
        out["software_gl_heap_mb"] = None
        out["ours_mb"] = round(rss - files, 1)
        return out
    profiler = max(0, in_use - heap.live) / 2**20 if in_use is not None else 0.0
    gl_heap = heap.software_gl / 2**20
    # The heap in use and Python's arenas beyond the anonymous resident memory were never touched:
    # counted as the renderer's untouched bytes (the worst case for us), given back to our figure.
    held = (in_use or 0) + (arenas or 0)
    untouched = min(gl_heap, max(0.0, held / 2**20 - reading["anon_kb"] * mb))
    ours = rss - files - (gl_heap - untouched) - profiler
    out.update(software_gl_heap_mb=round(gl_heap, 1), software_gl_heap_untouched_mb=round(untouched, 1),
               profiler_heap_mb=round(profiler, 1), heap_live_mb=round(heap.live / 2**20, 1),
               heap_by_library_mb={k: round(v / 2**20, 1) for k, v in heap.by_module.items()},
               ours_mb=round(ours, 1))
    return out
