"""What a run of a skill reads of it, without loading it when the last scan can tell.

A run needs the skill's name and folder and a few manifest fields (``timeout``,
``network``, ``read_only``, ``always_ask``, ``modes``: ``execution.ManifestLike``,
and the description an approval shows). ``Catalog.runnable`` answers them from the
scan's cached record while the SKILL.md keeps the stat signature the scan validated
(``StoreBase.run_settings``), so a run of an unchanged skill neither reads nor parses
its SKILL.md; the body (a declared tool, a hint naming the tools) is loaded on first
use. Plain slotted classes: a run makes one of each.
"""

from __future__ import annotations

from collections.abc import Callable

from skilldeck.catalog._model import ByMetadata

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck.catalog._cache import RunRow
    from skilldeck.catalog._loaded import Skill
    from skilldeck.catalog._model import SkillMetadata

__all__ = ["RunSettings", "Runnable"]


class RunSettings:
    """The manifest fields a run reads (``execution.ManifestLike``) and the
    description, as the last scan parsed them."""

    __slots__ = ("always_ask", "description", "modes", "network", "read_only", "timeout")

    def __init__(self, description: str, row: RunRow | None) -> None:
        self.description = description
        timeout, network, read_only, always_ask, modes = row or (None, False, False, False, None)
        self.timeout: int | None = timeout
        self.network: bool = network
        self.read_only: bool = read_only
        self.always_ask: bool = always_ask
        self.modes: tuple[str, ...] | None = modes

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in sorted(self.__slots__))
        return f"RunSettings({fields})"


class Runnable(ByMetadata):
    """A skill as a run sees it (``execution.SkillLike``): its metadata's name,
    folder and SKILL.md, the run settings as ``manifest``, and the body and its
    first line loaded (``load``) when first read."""

    __slots__ = ("_load", "_loaded", "manifest", "metadata")

    def __init__(
        self, metadata: SkillMetadata, settings: RunSettings, load: Callable[[], Skill]
    ) -> None:
        self.metadata = metadata
        self.manifest = settings
        self._load = load
        self._loaded: Skill | None = None

    def _skill(self) -> Skill:
        loaded = self._loaded
        if loaded is None:
            loaded = self._loaded = self._load()
        return loaded

    @property
    def body(self) -> str:
        """The SKILL.md body (the skill is loaded on first read)."""
        return self._skill().body

    @property
    def body_line(self) -> int:
        return self._skill().body_line

    def __repr__(self) -> str:
        return f"Runnable({self.name!r}, {self.manifest!r})"
