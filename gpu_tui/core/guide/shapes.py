"""Known model shapes (layers, KV heads, head size) for the KV-cache arithmetic, with sources."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from gpu_tui.core.errors import UsageError
from gpu_tui.core.limits import shown

_SRC_LLAMA3 = "The Llama 3 Herd of Models, Meta AI, July 2024, Table 3 (layers, KV heads, dims)"
_SRC_LLAMA2 = "Llama 2: Open Foundation and Fine-Tuned Chat Models, Meta AI, July 2023 (MHA)"


@dataclass(frozen=True)
class ModelShape:
    """What sets the size of a decoder-only transformer's KV cache."""

    key: str
    """What a user types to pick it, e.g. ``llama-3.1-70b``."""
    name: str
    params: float
    """Nominal parameter count (the number in the name): the weights arithmetic uses it."""
    layers: int
    kv_heads: int
    head_dim: int
    source: str


# Nominal sizes are distinct so a bare "8B" or "70e9" picks exactly one shape.
KNOWN_SHAPES: tuple[ModelShape, ...] = (
    ModelShape("llama-2-7b", "Llama 2 7B", 7e9, 32, 32, 128, _SRC_LLAMA2),
    ModelShape("llama-3.1-8b", "Llama 3.1 8B", 8e9, 32, 8, 128, _SRC_LLAMA3),
    ModelShape("llama-2-13b", "Llama 2 13B", 13e9, 40, 40, 128, _SRC_LLAMA2),
    ModelShape("llama-3.1-70b", "Llama 3.1 70B", 70e9, 80, 8, 128, _SRC_LLAMA3),
    ModelShape("llama-3.1-405b", "Llama 3.1 405B", 405e9, 126, 8, 128, _SRC_LLAMA3),
)

# The rule for sizes not in the table borrows only from the Llama 3.1 family: it is the
# modern grouped-query-attention baseline, whereas Llama 2's full multi-head attention would
# inflate the KV estimate 4-5x for a model that most likely uses GQA.
_FALLBACK_FAMILY = tuple(s for s in KNOWN_SHAPES if s.key.startswith("llama-3.1"))

# A size counts as "that model" when within 2 %, so 8.03e9 still picks Llama 3.1 8B.
_MATCH_TOLERANCE = 0.02

# From a toy model to a hundred trillion parameters (today's largest are a few trillion).
MIN_PARAMS = 1e3
MAX_PARAMS = 1e14

_SUFFIX = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}
# ASCII digits only: without re.ASCII, \d also takes "٣", so "٣B" read as 3e9.
_NUMBER = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(?:e([+-]?\d+))?\s*([kmbt]?)", re.ASCII)


@dataclass(frozen=True)
class ShapeChoice:
    """The shape used for the KV cache and how it was chosen (shown next to the KV figure)."""

    shape: ModelShape
    exact: bool
    """True when the size is a known model's; False when the documented rule borrowed it."""
    how: str


def parse_params(text: str) -> tuple[float, ModelShape | None]:
    """``"8B"``, ``"70e9"``, ``"1.5T"`` or a known model key → (parameters, its shape if named).

    Raises ``UsageError`` with a one-line message for anything else.
    """
    cleaned = text.strip().lower()
    for shape in KNOWN_SHAPES:
        if cleaned == shape.key:
            return shape.params, shape
    match = _NUMBER.fullmatch(cleaned)
    if match is None:
        raise _refusal(shown(text))
    mantissa, exponent, suffix = match.groups()
    # float() of the whole literal saturates to inf or 0 instead of raising OverflowError the way
    # 10.0 ** 400 does, and never turns a thousand-digit exponent into an int.
    params = float(f"{mantissa}e{exponent or 0}") * _SUFFIX[suffix]
    if not MIN_PARAMS <= params <= MAX_PARAMS:
        raise _refusal(shown(text))
    return params, None


def check_params(params: float) -> float:
    """A parameter count in range (1K to 100T), else ``UsageError``."""
    if isinstance(params, bool) or not MIN_PARAMS <= params <= MAX_PARAMS:
        raise _refusal(repr(params))
    return params


def _refusal(got: str) -> UsageError:
    known = ", ".join(s.key for s in KNOWN_SHAPES)
    return UsageError(
        "model size must be a parameter count between 1K and 100T, like 8B, 70e9 or 1.5T, "
        f"or one of {known}; got {got}"
    )


def choose_shape(params: float, named: ModelShape | None = None) -> ShapeChoice:
    """The known shape for this size, or the documented rule's borrowed one."""
    if named is not None:
        return ShapeChoice(named, True, f"{named.name} ({named.source})")
    for shape in KNOWN_SHAPES:
        if abs(params - shape.params) <= _MATCH_TOLERANCE * shape.params:
            return ShapeChoice(shape, True, f"{shape.name} ({shape.source})")
    # Nearest on a log scale: 30B is "between" 8B and 70B by ratio, not by difference.
    nearest = min(_FALLBACK_FAMILY, key=lambda s: abs(math.log(params / s.params)))
    return ShapeChoice(
        nearest,
        False,
        f"assumed: no known model of this size, so the shape of {nearest.name} (the nearest "
        f"Llama 3.1 size on a log scale) is borrowed; {nearest.source}",
    )
