"""Which shape a model gets: a named model's published configuration, or an assumed one."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from gpu_tui.core.errors import UsageError
from gpu_tui.core.guide.models import NAMED_MODELS, ModelShape, find_model
from gpu_tui.core.limits import shown
from gpu_tui.core.units import format_parameters

__all__ = ["ModelShape", "ShapeChoice", "check_params", "choose_shape", "parse_params"]

# A bare size borrows the shape of the nearest Llama 3.1 model: the modern dense GQA baseline.
# Llama 2's full multi-head attention would inflate the KV estimate 4-5x for a model that most
# likely uses GQA, and an MoE or MLA guess would need figures a bare size does not give.
_ASSUMED_FROM = tuple(m for m in NAMED_MODELS if m.key.startswith("llama-3.1-"))

# From a toy model to a hundred trillion parameters (today's largest are a few trillion).
MIN_PARAMS = 1e3
MAX_PARAMS = 1e14

_SUFFIX = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}
# ASCII digits only: without re.ASCII, \d also takes "٣", so "٣B" read as 3e9.
_NUMBER = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(?:e([+-]?\d+))?\s*([kmbt]?)", re.ASCII)


@dataclass(frozen=True)
class ShapeChoice:
    """The shape used for the KV cache and decode, and how it was chosen (shown beside them)."""

    shape: ModelShape
    exact: bool
    """True for a named model's published configuration; False for an assumed shape."""
    how: str
    borrowed_from: str = ""
    """For an assumed shape, the named model whose shape it borrows."""


def parse_params(text: str) -> tuple[float, ModelShape | None]:
    """``"8B"``, ``"70e9"``, ``"1.5T"`` or a named model → (parameters, its shape if named).

    Names are case-insensitive (``Llama-3.1-70B``, ``deepseek-v3``, ``gpt-oss-120b``).
    Raises ``UsageError`` with a one-line message for anything else.
    """
    named = find_model(text)
    if named is not None:
        return named.params, named
    match = _NUMBER.fullmatch(text.strip().lower())
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


def model_names() -> str:
    """The named models, comma-separated, for help texts."""
    return ", ".join(m.key for m in NAMED_MODELS)


def _refusal(got: str) -> UsageError:
    return UsageError(
        "model size must be a parameter count between 1K and 100T, like 8B, 70e9 or 1.5T, "
        "or a named model such as llama-3.1-70b, mixtral-8x7b, deepseek-v3, qwen3-235b-a22b "
        f"or gpt-oss-120b (gpu-tui guide --help lists them); got {got}"
    )


def choose_shape(params: float, named: ModelShape | None = None) -> ShapeChoice:
    """The named model's configuration, or for a bare size the assumed shape.

    A bare size is never matched to a model of about that size: "70B" may be any 70B model, so
    its shape is labelled assumed even where it borrows from Llama 3.1 70B.
    """
    if named is not None:
        titles = "; ".join(source.cite() for source in named.sources)
        return ShapeChoice(named, True, f"{named.name}, published configuration ({titles})")
    # Nearest on a log scale: 30B is "between" 8B and 70B by ratio, not by difference.
    nearest = min(_ASSUMED_FROM, key=lambda m: abs(math.log(params / m.params)))
    assumed = replace(
        nearest, key="", name=f"{format_parameters(params)} (assumed shape)", params=params
    )
    return ShapeChoice(
        assumed,
        False,
        f"assumed shape: a bare size names no model, so it borrows {nearest.name}'s "
        f"({nearest.layers} layers, {nearest.kv_heads} KV heads × {nearest.head_dim}, dense), "
        "the nearest Llama 3.1 size on a log scale; name a model for its own",
        nearest.name,
    )
