"""Names for CPUs: a model's short name for a list, x86 family/model → microarchitecture, Arm
implementer/part → core."""

from __future__ import annotations

import re

_MARKS = re.compile(r"\s*\((?:R|TM|tm|r)\)")
_CLOCK = re.compile(r"\s*(?:CPU\s*)?@\s*[\d.]+\s*[GM]Hz\s*$")


def short_cpu_name(model: str) -> str:
    """A CPU model as a list shows it: without the trademark marks, the rated clock or, after
    a model number, the word Processor (``Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz`` → ``Intel
    Xeon Gold 6338``, ``AMD EPYC 7763 64-Core Processor`` → ``AMD EPYC 7763 64-Core``); the
    sheet's title keeps the whole name."""
    name = _CLOCK.sub("", _MARKS.sub("", model)).strip()
    if re.search(r"\d", name):
        name = re.sub(r"\s+Processor$", "", name)
    return " ".join(name.split()) or model


# AMD: (family, first model, last model) → name. Sources: AMD PPRs; the Linux kernel's
# arch/x86 model tables; Wikipedia "List of AMD CPU microarchitectures".
AMD_RANGES: tuple[tuple[int, int, int, str], ...] = (
    (0x17, 0x00, 0x2F, "Zen / Zen+"),
    (0x17, 0x30, 0xFF, "Zen 2"),
    (0x19, 0x00, 0x0F, "Zen 3"),
    (0x19, 0x10, 0x1F, "Zen 4"),
    (0x19, 0x20, 0x5F, "Zen 3"),
    (0x19, 0x60, 0xAF, "Zen 4"),
    (0x1A, 0x00, 0xFF, "Zen 5"),
)

# Intel family 6 models (arch/x86/include/asm/intel-family.h).
INTEL_MODELS: dict[int, str] = {
    0x3F: "Haswell-EP",
    0x4F: "Broadwell-EP",
    0x55: "Skylake-SP / Cascade Lake",
    0x6A: "Ice Lake-SP",
    0x6C: "Ice Lake-D",
    0x8F: "Sapphire Rapids",
    0xCF: "Emerald Rapids",
    0xAD: "Granite Rapids",
    0xAF: "Sierra Forest",
    0x8C: "Tiger Lake",
    0x97: "Alder Lake",
    0x9A: "Alder Lake",
    0xB7: "Raptor Lake",
    0xBA: "Raptor Lake",
    0xAA: "Meteor Lake",
    0xC6: "Arrow Lake",
    0xBD: "Lunar Lake",
}

ARM_IMPLEMENTERS: dict[int, str] = {
    0x41: "ARM",
    0x42: "Broadcom",
    0x43: "Cavium",
    0x46: "Fujitsu",
    0x48: "HiSilicon",
    0x4E: "NVIDIA",
    0x51: "Qualcomm",
    0x61: "Apple",
    0xC0: "Ampere",
}

# (implementer, part) → core name (util-linux lscpu-arm.c).
ARM_PARTS: dict[tuple[int, int], str] = {
    (0x41, 0xD08): "Cortex-A72",
    (0x41, 0xD0B): "Cortex-A76",
    (0x41, 0xD0C): "Neoverse-N1",
    (0x41, 0xD40): "Neoverse-V1",
    (0x41, 0xD49): "Neoverse-N2",
    (0x41, 0xD4F): "Neoverse-V2",
    (0x41, 0xD83): "Neoverse-V3",
    (0x41, 0xD8E): "Neoverse-N3",
    (0xC0, 0xAC3): "Ampere-1",
    (0xC0, 0xAC4): "Ampere-1a",
    (0x48, 0xD01): "TaiShan-v110",
    (0x46, 0x001): "A64FX",
}


def microarchitecture(vendor: str | None, family: int | None, model: int | None) -> str | None:
    """The x86 core generation, or None when it is not in our tables."""
    if family is None or model is None:
        return None
    if vendor == "AuthenticAMD":
        for fam, first, last, name in AMD_RANGES:
            if family == fam and first <= model <= last:
                return name
    if vendor == "GenuineIntel" and family == 6:
        return INTEL_MODELS.get(model)
    return None


def arm_vendor(implementer: int | None) -> str | None:
    """Who designed an Arm core, from its implementer code."""
    return ARM_IMPLEMENTERS.get(implementer) if implementer is not None else None


def arm_core_name(implementer: int | None, part: int | None) -> str | None:
    """The Arm core's name (e.g. ``Neoverse-V1``), or None when unknown."""
    if implementer is None or part is None:
        return None
    return ARM_PARTS.get((implementer, part))
