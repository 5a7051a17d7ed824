"""The copy matrix's measurement for real, on CPU tensors timed with the host clock: the same code
as on GPUs but for the thin CUDA layer (``worker/copy_cuda.py``, unverified without a GPU). Then
through gpu-tui's own command, its launcher and its runner, with two CPU "devices"."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gpu_tui.core.bench.document import RunDocument
from gpu_tui.core.bench.peak import PeakTable
from gpu_tui.core.bench.results import from_worker
from gpu_tui.core.bench.worker import copy_matrix as cm
from gpu_tui.core.bench.worker.comm_copies import StdinStop
from gpu_tui.core.comm import copies
from tests import needs
from tests.fakes import faulty_worker
from tests.helpers.running_app import command, environment

torch = needs.module("torch")

NAMES = ["cpu#0", "cpu#1", "host"]


class Sent:
    """Collects what the worker would write as protocol lines."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, kind: str, /, **fields: Any) -> None:
        json.dumps(fields)  # every message must be JSON as the channel writes it
        self.messages.append((kind, fields))

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [fields for found, fields in self.messages if found == kind]


def run_on_cpus(sent: Sent, **options: Any) -> int:
    backend = options.pop("backend", None) or cm.HostBackend(torch)
    settings: dict[str, Any] = {"latency_bytes": 4, "bandwidth_bytes": 256 << 10, "budget": 0.004}
    return cm.run(backend, ["cpu", "cpu"], **(settings | options), send=sent)


@pytest.mark.timeout(120)
def test_every_copy_between_two_cpu_devices_is_timed_checked_and_reported() -> None:
    sent = Sent()
    assert run_on_cpus(sent) == 16  # 2 sizes × (2 p2p + 2 staged + 2 h2d + 2 d2h)
    results = sent.of("result")
    assert [(r["variant"], r["params"]["src"], r["params"]["dst"]) for r in results[:8]] == [
        ("p2p", "cpu#0", "cpu#1"),
        ("p2p", "cpu#1", "cpu#0"),
        ("staged", "cpu#0", "cpu#1"),
        ("staged", "cpu#1", "cpu#0"),
        ("h2d", "host", "cpu#0"),
        ("d2h", "cpu#0", "host"),
        ("h2d", "host", "cpu#1"),
        ("d2h", "cpu#1", "host"),
    ]
    for result in results:
        timing = result["timing"]
        assert 0 < timing["p20_seconds"] <= timing["median_seconds"] <= timing["p80_seconds"]
        assert timing["repeats"] >= 3
        assert timing["method"] == "host-clock"
        assert result["checks"]["ok"] is True
        assert result["checks"]["bytes_checked"] == result["params"]["bytes"]
        assert result["device"] == (
            result["params"]["dst"]
            if result["params"]["src"] == "host"
            else result["params"]["src"]
        )
    assert {r["params"]["bytes"] for r in results} == {4, 256 << 10}
    progress = sent.of("progress")
    assert [p["index"] for p in progress] == list(range(16))
    assert {p["total"] for p in progress} == {16}
    # what gpu-tui makes of them: results, the matrices, the JSON object, the report
    made = [from_worker({"type": "result", **r}, PeakTable({})) for r in results]
    matrix = copies.build_matrix(made, "staged", "bandwidth")
    assert matrix is not None
    assert matrix.names == tuple(NAMES)
    for src in NAMES:
        for dst in NAMES:
            value = matrix.value(src, dst)
            assert (value is None) == (src == dst)
            assert value is None or value > 0
    assert matrix.percent("cpu#0", "cpu#1") is None  # no topology: no link peak
    document = RunDocument("comm", 0.004, "2026-11-20T14:02:11+0000", results=made)
    data = json.loads(document.to_json())
    assert data["copies"]["devices"] == NAMES
    assert data["copies"]["link"]["p2p"] == [[None] * 3] * 3
    assert RunDocument.from_dict(data).to_dict() == data
    assert any(line.startswith("cpu#0 ") for line in copies.report(made))


def test_the_staged_copy_goes_chunk_by_chunk_through_two_slots() -> None:
    class Recorder:
        def __init__(self) -> None:
            self.calls: list[str] = []

        def before_out(self, slot: int) -> None:
            self.calls.append(f"wait{slot}")

        def after_out(self, slot: int) -> None:
            self.calls.append(f"out{slot}")

        def after_in(self, slot: int) -> None:
            self.calls.append(f"in{slot}")

        def finish(self) -> None:
            self.calls.append("finish")

    src = torch.arange(10, dtype=torch.uint8)
    dst = torch.zeros(10, dtype=torch.uint8)
    slots = [torch.zeros(4, dtype=torch.uint8), torch.zeros(4, dtype=torch.uint8)]
    relay = Recorder()
    cm.staged_copy(src, dst, slots, relay)
    assert torch.equal(dst, src)
    assert relay.calls == [
        *("wait0", "out0", "in0"),
        *("wait1", "out1", "in1"),
        *("wait0", "out0", "in0"),  # the third chunk (2 bytes) reuses the first slot
        "finish",
    ]


def test_pairs_without_peer_access_get_the_staged_copy_only() -> None:
    sent = Sent()
    backend = cm.HostBackend(torch, peer=lambda src, dst: src.endswith("0"))
    run_on_cpus(sent, backend=backend, latency_bytes=0)
    assert [(r["variant"], r["params"]["src"]) for r in sent.of("result")[:3]] == [
        ("p2p", "cpu#0"),
        ("staged", "cpu#0"),
        ("staged", "cpu#1"),
    ]
    [skip] = sent.of("skip")
    assert skip["params"] == {"path": "p2p", "src": "cpu#1", "dst": "cpu#0"}
    assert skip["reason"].startswith("cpu#1 cannot reach cpu#0 directly (no peer access)")


def test_copies_shrink_to_the_free_memory() -> None:
    class Tight(cm.HostBackend):
        def free_bytes(self, device: str) -> int:
            return 3 << 20  # two CPU "devices" share it: 4 buffers within 25 %

    sent = Sent()
    run_on_cpus(sent, backend=Tight(torch), bandwidth_bytes=4 << 20, latency_bytes=0)
    result = sent.of("result")[0]
    assert result["params"]["bytes"] == 128 << 10
    assert any("not 4,194,304 B" in w for w in result["warnings"])


def test_a_wrong_copy_is_caught_and_a_stop_is_obeyed() -> None:
    backend = cm.HostBackend(torch)
    named = cm.names_for(["cpu", "cpu"])
    buffers = cm.Buffers(backend, named, 1000)
    point = cm.Point("p2p", "cpu#0", "cpu#1", 1000, "bandwidth")
    good = cm.copier(backend, buffers, named, point)
    assert cm.check_copy(backend, buffers, named, point, good, seed=7) == 0
    assert cm.check_copy(backend, buffers, named, point, lambda: None, seed=7) > 990
    calls = iter(range(1000))
    with pytest.raises(cm.Stopped):
        run_on_cpus(Sent(), stop=lambda: next(calls) > 40)


def test_stop_is_read_from_stdin_a_line_at_a_time_and_the_rest_left() -> None:
    read, write = os.pipe()
    try:
        stop = StdinStop(read)
        assert stop() is False
        os.write(write, b"hello\nst")
        assert stop() is False  # half a line: not yet
        os.write(write, b"op\nfor rank 0\n")
        assert stop() is True
        assert os.read(read, 100) == b"for rank 0\n"  # left for the next reader
        ended = StdinStop(read)
        os.close(write)
        write = -1
        assert ended() is True  # gpu-tui went away
    finally:
        os.close(read)
        if write != -1:
            os.close(write)


def comm_copies(data_dir: Path, *args: str, devices: str | None) -> Any:
    """``bench --suite comm --only copies``; between CPU "devices" when ``devices`` is given."""
    extra = {faulty_worker.FAULT_VARIABLE: f"copies-host:{devices}"} if devices else {}
    python = ("--bench-python", faulty_worker.python(data_dir.parent)) if devices else ()
    return subprocess.run(
        command("bench", "--suite", "comm", "--device", "cpu", "--only", "copies", *python, *args),
        env=environment(data_dir, **extra),
        capture_output=True,
        text=True,
        timeout=100,
    )


@pytest.mark.timeout(120)
def test_the_command_runs_the_copies_in_one_process(private_data_dir: Path) -> None:
    done = comm_copies(
        private_data_dir, "--max-bytes", "64K", "--budget", "0.003", "--json", devices="cpu,cpu"
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    document = RunDocument.from_dict(data)
    assert document.finished
    assert not document.errors
    assert document.plan is not None
    assert document.plan["comm"]["operations"] == []  # no torchrun, no ranks
    assert len(document.results) == 16
    assert {r.params["bytes"] for r in document.results} == {4, 64 << 10}
    assert all(
        r.checks == {"ok": True, "wrong_bytes": 0, "bytes_checked": r.params["bytes"]}
        for r in document.results
    )
    assert data["copies"]["devices"] == NAMES
    assert "copies alone, in one process" in done.stderr
    assert "rank" not in done.stderr


@pytest.mark.timeout(120)
def test_without_two_gpus_the_copies_say_why_and_the_run_succeeds(private_data_dir: Path) -> None:
    done = comm_copies(private_data_dir, "--budget", "0.003", devices=None)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "copies not measured: GPU-to-GPU copies need --device cuda and 2 GPUs or more; this run "
        "is on the CPU"
    )
    table = comm_copies(
        private_data_dir, "--max-bytes", "1K", "--budget", "0.003", devices="cpu,cpu"
    )
    assert table.returncode == 0, table.stderr
    assert "Copies bandwidth, P2P: direct peer copies (1 KiB per copy, GB/s):" in table.stdout
    assert "from\\to  cpu#0  cpu#1" in table.stdout
