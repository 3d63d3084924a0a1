"""The clocks the benchmarks judge budgets on (companion/benchmarks/clocks.py): the unshared
figure takes off a wait for a CPU, never more than the wall nor below the work's own CPU time;
the waits are read per thread, a new thread counted from its start."""

import subprocess
import sys
import time

from pytest import approx

from companion.benchmarks import clocks


def test_a_sample_takes_off_the_wait_and_keeps_the_work() -> None:
    one = clocks.sample(0.050, 0.010, (0.030, 0.035))
    assert one["unshared"] == approx(20.0) and one["unshared_low"] == approx(15.0)
    assert clocks.sample(0.050, 0.030, (0.045, 0.045))["unshared"] == approx(30.0)  # never below its CPU time
    assert clocks.sample(0.050, 0.010, None)["unshared"] == approx(50.0)  # unknown wait: the wall figure
    assert clocks.sample(0.050, 0.060, (0.0, 0.0))["unshared"] == approx(50.0)  # two threads' CPU: not above the wall
    # The speech bench's samples when this process and espeak-ng run on two cores at once: more CPU
    # time than elapsed time, so the unshared figures (the wall ones) are below the CPU ones.
    both = clocks.judge([clocks.sample(0.0087, 0.0089, (0.0002, 0.0002))] * 3, 50.0)
    assert both["unshared"]["p50_ms"] == approx(8.7) and both["cpu"]["p50_ms"] == approx(8.9)


def test_the_waits_of_one_thread_and_of_all() -> None:
    before = {"self/1": 100, "self/2": 5_000_000}
    after = {"self/1": 3_000_100, "self/2": 6_000_000, "42/42": 2_000_000}  # 42: a child started since
    assert clocks.waited_s(before, after) == (approx(0.003), approx(0.006))
    assert clocks.waited_s(None, after) is None


def test_judge_says_its_figures_the_clock_it_judged_on_and_the_machine() -> None:
    samples = [clocks.sample(w / 1000, 0.002, ((w - 5) / 1000, (w - 5) / 1000)) for w in (10, 12, 40, 11, 9)]
    out = clocks.judge(samples, 20.0, "p95_ms")
    assert out["wall"]["p95_ms"] == 40 and out["unshared"]["p95_ms"] == 5 and out["ok"] and not out["ok_on_wall"]
    assert out["judged_on"] == "unshared p95" and out["n"] == 5 and out["verdict"] == "ok"
    assert set(out["machine"]) == {"before", "after"} and out["machine"]["after"]["cores"] >= 1


def test_a_budget_kept_only_by_the_sum_of_waits_is_inconclusive() -> None:
    busy = [clocks.sample(0.040, 0.002, (0.010, 0.030)) for _ in range(5)]  # 30 ms by one, 10 by all
    out = clocks.judge(busy, 20.0, "p95_ms")
    assert out["verdict"] == "inconclusive" and not out["ok"]
    over = clocks.judge([clocks.sample(0.040, 0.030, (0.0, 0.0))], 20.0, "p95_ms")
    assert over["verdict"] == "over" and not over["ok"]


def test_a_clock_counts_a_child_s_cpu() -> None:
    clock = clocks.Clock().start()
    child = subprocess.Popen([sys.executable, "-c", "import sys; sum(range(3_000_000)); sys.stdin.read()"],
                             stdin=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and _cpu(child.pid) < 0.05:
            time.sleep(0.01)
        out = clock.stop([child.pid])
    finally:
        child.communicate(b"")
    assert out["cpu"] is not None and out["cpu"] >= 50  # ms: the child's sum, not only this process's
    assert out["unshared"] <= out["wall"]


def _cpu(pid: int) -> float:
    return clocks._tasks(str(pid), {})[0] / 1e9
