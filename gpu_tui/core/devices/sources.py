"""Where a figure comes from: the one way every table in gpu-tui names its source.

A figure shown to people (a datasheet peak, a rated clock, a model's layer count, a price) keeps
its source beside it: the address of the document and the figure *as that document states it*,
so a reviewer can open the page and find the same words. Primary sources are the vendor's own
datasheet, whitepaper, product page or documentation, or a paper (a model's own repository or
card counts for its configuration). Where only a secondary page states a figure, the source says
so (``primary=False``) and the app shows the figure as weakly sourced.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    """One document and what it says about one figure (or one row of figures)."""

    url: str
    """Where to read it (an https address)."""
    says: str
    """The figure as the document states it, in its words (units, footnotes and all), e.g.
    ``"BF16 Tensor Core 1,979 teraFLOPS*" with "* With sparsity"``."""
    title: str = ""
    """The document's name, e.g. ``NVIDIA H100 Tensor Core GPU datasheet``."""
    primary: bool = True
    """A vendor document or a paper; False for anything else (then shown as weakly sourced)."""

    def cite(self) -> str:
        """One line for people: the title (or the address) and, if weak, that it is."""
        name = self.title or self.url
        return name if self.primary else f"{name} (secondary source)"
