"""The runtime's search index over the skills the model may know of.

Built from the catalog's metadata, reused while the catalog hands out the same
metadata objects, and saved next to the catalog's metadata cache
(``<cache>/search/``) so a fresh process loads it instead of reading every
SKILL.md again. Documents carry the name, description, tags and, with
``search_headings``, the headings and words of the body's first 64 KiB.
"""

from __future__ import annotations

import operator
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from skilldeck._errors import SkillError
from skilldeck.search import SearchDocument, SearchIndex, body_fields
from skilldeck.tools._options import CatalogLike, RuntimeOptions

if TYPE_CHECKING:
    from skilldeck.catalog import Catalog

__all__ = ["RuntimeSearch"]

_HEADINGS_BYTES = 64 * 1024  # how much of each SKILL.md the search index reads
_Fields = list[tuple[str, list[str]]]  # SearchDocument.fields()


class RuntimeSearch:
    """The search index of one runtime: built on first use, rebuilt when the listing changes."""

    def __init__(self, catalog: Catalog | CatalogLike, options: RuntimeOptions) -> None:
        self.catalog = catalog
        self.options = options
        self._index: SearchIndex | None = None
        self._of: list[Any] = []  # the metadata objects the index was built from
        self._store: tuple[Path, str] | None = None  # where the index is saved, and its key
        self._lock = threading.Lock()
        # the document made of each metadata object of the last build (held, so an id is
        # not recycled): a catalog hands out the same object for a skill that did not
        # change, so a rebuild after one publish reads and parses one body, not all
        self._docs: dict[int, tuple[Any, SearchDocument, _Fields]] = {}
        self.documents_made = 0
        """Documents made from a skill's body so far (the expensive part of a build)."""
        self.background = False
        """Once an index exists, rebuild it in a thread and keep answering from the last
        one meanwhile (a server whose catalog changes often: no search waits for a
        rebuild; each sees the listing of at most one rebuild ago)."""
        self._rebuilding = False

    def index(self, metas: list[Any]) -> SearchIndex:
        """The search index over ``metas`` (rebuilt when the listing changes).

        The catalog hands out the same metadata objects until it rescans, so the
        index is reused while every object is identical (held here, so identities
        cannot be recycled).
        """
        with self._lock:
            same = len(metas) == len(self._of) and all(map(operator.is_, metas, self._of))
            if self._index is not None and same:
                return self._index
            if self.background and self._index is not None and self.options.embedder is None:
                if not self._rebuilding:
                    self._rebuilding = True
                    threading.Thread(
                        target=self._rebuild, args=(metas,), name="skilldeck-search", daemon=True
                    ).start()
                return self._index
            index = self._build(metas)
            if self.options.embedder is not None:
                from skilldeck.search import SemanticIndex

                # skill embeddings saved beside the index, under its key; the
                # previous index's embeddings of unchanged skills are reused
                previous = self._index if isinstance(self._index, SemanticIndex) else None
                index = SemanticIndex(
                    index, self.options.embedder, store=self._store, reuse=previous
                )
            self._index = index
            self._of = metas
            return self._index

    def _rebuild(self, metas: list[Any]) -> None:
        """Build the index of ``metas`` outside the lock, then swap it in."""
        try:
            index = self._build(metas)  # only one rebuild runs: _rebuilding
            with self._lock:
                self._index, self._of = index, metas
        finally:
            self._rebuilding = False

    def _build(self, metas: list[Any]) -> SearchIndex:
        """Load the index saved for exactly these skills, else build and save it.

        Saved next to the catalog's metadata cache (``<cache>/search/``); a catalog
        without a cache (``cache=False``) builds in memory only."""
        from skilldeck.search import EVIDENCE, index_key, load_index, save_index

        folder = _search_cache_dir(self.catalog)
        key = ""
        self._store = None
        if folder is not None:
            paths = [_skill_md_path(m) for m in metas]
            key = index_key(metas, paths, salt=f"headings={self.options.search_headings}")
            self._store = (folder, key)
            built = load_index(folder, key)
            if built is not None and built.n == len(metas):
                meta = load_index(folder, key + EVIDENCE)
                # documents are made when a hit needs one, not 10,000 up front
                return SearchIndex(
                    _Documents(metas, self._search_doc),
                    _built=built,
                    _meta=meta if meta is not None and meta.n == built.n else None,
                )
        docs, fields = self._documents(metas)
        index = SearchIndex(docs, _fields=fields)
        if folder is not None:
            save_index(folder, key, index._builtin)
            if index._meta is not None:
                save_index(folder, key + EVIDENCE, index._meta)
        return index

    def _documents(self, metas: list[Any]) -> tuple[list[SearchDocument], list[_Fields]]:
        """A document per skill and its tokenized fields, the previous build's for every
        unchanged skill (reading a body and tokenizing are most of a build)."""
        kept: dict[int, tuple[Any, SearchDocument, _Fields]] = {}
        docs, fields = [], []
        for meta in metas:
            found = self._docs.get(id(meta))
            if found is None or found[0] is not meta:
                doc = self._search_doc(meta, body=self.options.search_headings)
                found = (meta, doc, doc.fields())
                self.documents_made += 1
            kept[id(meta)] = found
            docs.append(found[1])
            fields.append(found[2])
        self._docs = kept
        return docs, fields

    def _search_doc(self, meta: Any, *, body: bool = True) -> SearchDocument:
        headings: tuple[str, ...] = ()
        words = usage = ""
        if body and self.options.search_headings:
            text = self._body_head(meta)
            headings, words, usage = body_fields(text)
        return SearchDocument(
            name=meta.name,
            description=meta.description,
            tags=tuple(getattr(meta, "tags", ()) or ()),
            headings=headings,
            key=meta.name,
            source=getattr(meta, "source", None) or None,
            when_to_use=getattr(meta, "when_to_use", None),
            body=words,
            usage=usage,
        )

    def _body_head(self, meta: Any) -> str:
        # a bounded read of the SKILL.md discovery already vetted; the store's full
        # load (file index and all) is only needed for skills without a file
        path = getattr(meta, "skill_md", None)
        if path is not None:
            try:
                with open(path, "rb") as fh:
                    head = fh.read(_HEADINGS_BYTES).decode("utf-8", errors="replace")
            except OSError:
                return ""
            return _strip_frontmatter(head)
        try:
            skill = self.catalog.load(_address(meta), max_bytes=_HEADINGS_BYTES)
        except SkillError:
            return ""
        return skill.body


class _Documents(Sequence[SearchDocument]):
    """Search documents of catalog metadata, made on first access (no body read)."""

    def __init__(self, metas: list[Any], make: Callable[..., SearchDocument]) -> None:
        self._metas = metas
        self._make = make
        self._made: dict[int, SearchDocument] = {}
        self.names = [m.name for m in metas]

    def __len__(self) -> int:
        return len(self._metas)

    @overload
    def __getitem__(self, i: int) -> SearchDocument: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[SearchDocument]: ...
    def __getitem__(self, i: int | slice) -> SearchDocument | Sequence[SearchDocument]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        doc = self._made.get(i)
        if doc is None:
            doc = self._made[i] = self._make(self._metas[i], body=False)
        return doc


def _search_cache_dir(catalog: Any) -> Path | None:
    """``<catalog cache>/search``, or ``None`` when the catalog caches nothing."""
    cache = getattr(catalog, "_cache", None)
    directory = getattr(cache, "directory", None)
    return Path(directory) / "search" if directory is not None else None


def _skill_md_path(meta: Any) -> str | None:
    folder, md = getattr(meta, "folder", None), getattr(meta, "md_name", None)
    if isinstance(folder, str) and isinstance(md, str):
        return os.path.join(folder, md)  # no Path objects: 10,000 of them cost
    path = getattr(meta, "skill_md", None)
    return str(path) if path is not None else None


def _strip_frontmatter(text: str) -> str:
    """The text after a leading ``---`` frontmatter block (YAML comments are not headings)."""
    text = text.removeprefix("\ufeff")
    if not text.startswith("---"):
        return text
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines[1:], start=1):
        if line.rstrip() in ("---", "..."):
            return "".join(lines[i + 1 :])
    return ""


def _address(meta: Any) -> str:
    source = getattr(meta, "source", "")
    return f"{source}:{meta.name}" if source else str(meta.name)
