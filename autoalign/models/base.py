"""Small interfaces for each model role.

Backends implement these and are listed in :mod:`autoalign.registry`. A backend is constructed
cheaply from its :class:`~autoalign.config.RoleSpec` plus the run's device/dtype, and loads its
weights lazily on first use (never in ``__init__``). The shared process-wide cache in
:mod:`autoalign.models.cache` makes sure one model is loaded once.
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence, runtime_checkable

from PIL import Image


@runtime_checkable
class Generator(Protocol):
    """Text-to-image: ``n`` images for a prompt, deterministic in ``seed``."""

    def generate(
        self, prompt: str, n: int, seed: int, negative_prompt: str | None = None
    ) -> list[Image.Image]: ...

    def max_prompt_tokens(self) -> int | None:
        """How many tokens the text encoder reads (for truncation warnings), if known."""
        ...


@runtime_checkable
class Editor(Protocol):
    """Instruction-based editing: ``n`` edited samples of ``image`` following ``instruction``.

    Output images have the input's size, whatever the model's native resolution.
    """

    def edit(self, image: Image.Image, instruction: str, n: int, seed: int) -> list[Image.Image]: ...


@runtime_checkable
class VQA(Protocol):
    """A vision-language model asked yes/no and short open questions."""

    def yes_prob(self, images: Sequence[Image.Image], questions: Sequence[str]) -> list[float]:
        """P(yes) normalised over yes/no, for each (images[i], questions[i]) pair."""
        ...

    def yes_no_probs(
        self, images: Sequence[Image.Image], questions: Sequence[str]
    ) -> list[tuple[float, float]]:
        """Unnormalised (P(yes), P(no)) from the next-token distribution, per pair."""
        ...

    def answer(self, images: Sequence[Image.Image], questions: Sequence[str], max_new_tokens: int = 16) -> list[str]:
        """Short free-form answers, per pair (the question wrapped in a short-answer prompt)."""
        ...

    def respond(self, images: Sequence[Image.Image], prompts: Sequence[str], max_new_tokens: int = 256) -> list[str]:
        """Free-form replies to instruction prompts sent as they are (no wrapper), per pair."""
        ...


@runtime_checkable
class ImageTextScorer(Protocol):
    """An embedding scorer such as CLIP: cosine similarity of each image with the text."""

    def cosine(self, images: Sequence[Image.Image], text: str) -> list[float]: ...


@runtime_checkable
class LLM(Protocol):
    """A chat model that returns JSON validated against a schema."""

    def complete_json(self, messages: list[dict[str, Any]], schema: dict[str, Any], name: str) -> dict[str, Any]: ...
