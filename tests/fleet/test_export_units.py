"""What ``gpu-tui export`` puts on its page: dcgm-exporter's names, units and labels."""

from __future__ import annotations

import dataclasses

import pytest

from gpu_tui.core.devices import discover
from gpu_tui.core.devices.fields import Unknown
from gpu_tui.core.devices.simulated import MEMORY_TOTAL, simulated_sample
from gpu_tui.core.errors import UsageError
from gpu_tui.core.fleet import queries
from gpu_tui.core.fleet.exposition import families, identities, reasons_mask
from gpu_tui.core.fleet.listen import parse_listen
from gpu_tui.core.monitor.samples import CpuSample, MemorySample, Sample


def demo_sample(t: float) -> Sample:
    cpu = CpuSample(1.0, (1.0,), Unknown("x"), Unknown("x"), Unknown("x"))
    memory = MemorySample(1, 1, 1, 0, 0)
    return Sample(timestamp=0.0, cpu=cpu, memory=memory, gpus=(simulated_sample(0, t),))


def values(t: float) -> dict[str, tuple[dict[str, str], float]]:
    gpus = identities(discover(demo=True))
    return {
        f.name: f.samples[0]
        for f in families(demo_sample(t), gpus, "node-7")
        if f.samples and f.name != "gpu_tui_peak_dense_tflops"
    }


def test_demo_gpu_is_exported_in_dcgm_units_with_its_labels() -> None:
    out = values(60.0)
    labels, used_mib = out["DCGM_FI_DEV_FB_USED"]
    assert labels["Hostname"] == "node-7"
    assert labels["gpu"] == "0"
    assert labels["modelName"].endswith("(SIMULATED #0)")
    assert labels["device"] == "simulated0"
    assert used_mib + out["DCGM_FI_DEV_FB_FREE"][1] == MEMORY_TOTAL // 1024**2
    assert out["DCGM_FI_DEV_ENFORCED_POWER_LIMIT"][1] == 700.0
    assert out["DCGM_FI_DEV_SLOWDOWN_TEMP"][1] == 87.0
    assert out["gpu_tui_simulated"][1] == 1.0
    assert out["DCGM_FI_DEV_CLOCKS_EVENT_REASONS"][1] == 0x4  # the demo load hits the power cap


def test_no_reading_yet_exports_identity_only() -> None:
    gpus = identities(discover(demo=True))
    names = {f.name for f in families(None, gpus, "n") if f.samples}
    assert names == {
        "gpu_tui_simulated",
        "gpu_tui_peak_dense_tflops",
        "gpu_tui_peak_memory_bandwidth_bytes_per_second",
    }


@pytest.mark.parametrize(
    ("words", "mask"),
    [
        ((), 0),
        (("idle",), 0x1),
        (("power cap", "software thermal slowdown"), 0x24),
        (("hardware thermal slowdown",), 0x48),
        (("other (0x1000)",), 0x1000),
    ],
)
def test_throttle_words_go_back_to_nvmls_bitmask(words: tuple[str, ...], mask: int) -> None:
    assert reasons_mask(words) == mask


@pytest.mark.parametrize(
    ("text", "host", "port", "loopback"),
    [
        ("127.0.0.1:9400", "127.0.0.1", 9400, True),
        ("9401", "127.0.0.1", 9401, True),
        ("[::1]:0", "::1", 0, True),
        ("localhost:9400", "localhost", 9400, True),
        ("0.0.0.0:9400", "0.0.0.0", 9400, False),
        ("[::]:9400", "::", 9400, False),
        ("10.1.2.3:9400", "10.1.2.3", 9400, False),
    ],
)
def test_listen_addresses(text: str, host: str, port: int, loopback: bool) -> None:
    address = parse_listen(text)
    assert (address.host, address.port, address.loopback) == (host, port, loopback)


@pytest.mark.parametrize("text", ["", "host", ":9400", "h:99999", "h:x", "::1:9400", "[::1]"])
def test_bad_listen_addresses(text: str) -> None:
    with pytest.raises(UsageError):
        parse_listen(text)


@pytest.mark.parametrize(
    ("text", "inner"),
    [
        ('Hostname=~"gpu-.*"', 'Hostname=~"gpu-.*"'),
        ('{job="dcgm", namespace!="kube-system"}', 'job="dcgm",namespace!="kube-system"'),
        ('pod="a,b"', 'pod="a,b"'),
        ("", ""),
    ],
)
def test_selectors(text: str, inner: str) -> None:
    assert queries.check_selector(text) == inner


@pytest.mark.parametrize("text", ["Hostname", 'x="a"} or vector(1', 'a="b', "1=2", "a=b"])
def test_bad_selectors(text: str) -> None:
    with pytest.raises(UsageError):
        queries.check_selector(text)


@pytest.mark.parametrize("reserved_mib", [531, None])
def test_the_driver_reserve_is_its_own_series_and_free_leaves_it_out(
    reserved_mib: int | None,
) -> None:
    """As dcgm-exporter counts it: total = used + free + reserved. Where the driver reports no
    reserve (no _v2 memory call), it is inside used, and no reserve series is written."""
    sample = demo_sample(60.0)
    reserve = Unknown("no _v2") if reserved_mib is None else reserved_mib * 1024**2
    gpu = dataclasses.replace(sample.gpus[0], memory_reserved_bytes=reserve)
    sample = dataclasses.replace(sample, gpus=(gpu,))
    out = {
        f.name: f.samples[0][1]
        for f in families(sample, identities(discover(demo=True)), "n")
        if f.samples
    }
    assert out.get("DCGM_FI_DEV_FB_RESERVED") == reserved_mib
    total = out["DCGM_FI_DEV_FB_USED"] + out["DCGM_FI_DEV_FB_FREE"] + (reserved_mib or 0)
    assert total == MEMORY_TOTAL // 1024**2
