"""Our resident memory told apart from the software renderer's (companion/benchmarks/memory.py):
its file mappings read from smaps, its heap from heaptrack's report of what is still allocated,
counted resident only as far as the anonymous memory holds it, the profiler's own heap not ours."""

import shutil
import subprocess
import sys

import pytest
from pytest import approx

from companion.benchmarks import memory

SMAPS = """\
7f0000000000-7f0000100000 r-xp 00000000 08:01 123 /usr/lib/x86_64-linux-gnu/libLLVM-15.so.1
Size:               1024 kB
Rss:                 600 kB
Anonymous:             0 kB
7f0000100000-7f0000200000 r--p 00000000 08:01 124 /usr/lib/x86_64-linux-gnu/dri/swrast_dri.so
Rss:                 100 kB
Anonymous:            20 kB
7f0000200000-7f0000300000 rw-p 00000000 00:00 0
Rss:                 900 kB
Anonymous:           900 kB
7f0000300000-7f0000400000 r-xp 00000000 08:01 125 /usr/lib/libpython3.11.so.1.0
Rss:                 300 kB
Anonymous:             0 kB
55aa00000000-55aa00100000 rw-p 00000000 00:00 0 [heap]
Rss:                 400 kB
Anonymous:           400 kB
"""

LEAKS = """\
reading file "ht.zst" - please wait, this might take some time...
MEMORY LEAKS
130.11M leaked over 11679 calls from
0x7f54e40b5528
  in /usr/lib/x86_64-linux-gnu/dri/swrast_dri.so
  and 130.11M from 1692 other places

18.59M leaked over 65293 calls from
_PyObject_Malloc
  at Objects/obmalloc.c:2003
  in /root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0
  and 18.59M from 12591 other places

7.12M leaked over 56276 calls from
0x7f54e642acc9
  in ??
  and 7.12M from 3 other places

512B leaked over 2 calls from
llvm::foo()
  in /usr/lib/x86_64-linux-gnu/libLLVM-15.so.1
  1.50K leaked over 1 calls from:
      bar
        in /usr/lib/x86_64-linux-gnu/libLLVM-15.so.1

total memory leaked: 155.82M
"""


def test_smaps_counts_the_renderer_s_files_apart() -> None:
    out = memory.parse_smaps(SMAPS.splitlines())
    assert out == {"rss_kb": 2300, "anon_kb": 1320, "software_gl_files_kb": 700, "software_gl_loaded": True}
    assert not memory.parse_smaps(SMAPS.splitlines()[10:])["software_gl_loaded"]


def test_the_heap_by_the_library_of_the_code_that_allocated_it() -> None:
    share = memory.parse_heaptrack_leaks(LEAKS)
    assert share.software_gl == 130_110_000 + 512  # a site's sub-backtraces are not counted again
    assert share.live == 130_110_000 + 18_590_000 + 7_120_000 + 512
    assert share.by_module["libpython3.11.so.1.0"] == 18_590_000 and share.by_module["??"] == 7_120_000


def test_ours_takes_off_the_renderer_and_the_profiler_only_as_far_as_they_are_resident() -> None:
    mib = 2**20
    reading = {"rss_kb": 300 * 1024, "anon_kb": 200 * 1024, "software_gl_files_kb": 70 * 1024,
               "malloc_in_use": 130 * mib, "python_arenas": 50 * mib}
    heap = memory.HeapShare(live=110 * mib, software_gl=90 * mib, by_module={"swrast_dri.so": 90 * mib})
    out = memory.without_software_gl(reading, heap)
    # 130 + 50 MB held in 200 MB anonymous: all resident; the profiler's own heap 130 - 110.
    assert out["software_gl_heap_untouched_mb"] == 0 and out["profiler_heap_mb"] == approx(20)
    assert out["ours_mb"] == approx(300 - 70 - 90 - 20)
    # Only 150 MB anonymous for 180 MB held: 30 MB never touched, charged to the renderer.
    short = memory.without_software_gl(dict(reading, anon_kb=150 * 1024), heap)
    assert short["software_gl_heap_untouched_mb"] == approx(30) and short["ours_mb"] == approx(out["ours_mb"] + 30)
    # Without a heap profile: the renderer's files alone.
    assert memory.without_software_gl(reading, None)["ours_mb"] == approx(230)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc and /proc")
def test_this_process_s_figures() -> None:
    before = memory.malloc_in_use()
    if before is None:
        pytest.skip("not glibc")
    block = bytearray(40 * 2**20)  # one malloc'd block, touched
    assert memory.malloc_in_use() - before >= 40 * 2**20
    reading = memory.smaps()
    assert reading["anon_kb"] >= 40 * 1024 and reading["rss_kb"] >= reading["anon_kb"]
    assert memory.python_arenas() > 0
    assert not memory.stop_heap_profiler()  # not profiled: nothing to stop
    del block


@pytest.mark.skipif(shutil.which("heaptrack") is None or shutil.which("heaptrack_print") is None,
                    reason="heaptrack not installed")
def test_heaptrack_sees_what_a_process_still_holds_when_it_ends(tmp_path) -> None:
    # Stopped and ended with os._exit, as the bench's profiled start is at its reading: what it
    # holds then is what heaptrack reports as never freed.
    code = ("import os; from companion.benchmarks import memory; kept = bytearray(30_000_000); "
            "assert memory.stop_heap_profiler(); os._exit(0)")
    subprocess.run(["heaptrack", "-o", str(tmp_path / "run"), sys.executable, "-c", code],
                   check=True, capture_output=True, timeout=120)
    data = next(tmp_path.glob("run.*"))
    share = memory.heaptrack_share(str(data))
    assert share.live >= 30_000_000 and share.software_gl == 0
    assert max(share.by_module.values()) >= 30_000_000
