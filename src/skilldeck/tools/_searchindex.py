"""The runtime's search index over the skills the model may know of.

Built from the catalog's metadata, reused while the catalog hands out the same
metadata objects, and saved next to the catalog's metadata cache
(``<cache>/search/``) so a fresh process loads it instead of reading every
SKILL.md again. Documents carry the name, description, tags and, with
``search_headings``, the headings and words of the body's first 64 KiB.
"""

from __future__ import annotations

import functools
import operator
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, overload

from skilldeck._errors import SkillError
from skilldeck._gc import paused as gc_paused
from skilldeck.search import SearchDocument, SearchIndex, body_parts, pieces_memory
from skilldeck.tools._options import CatalogLike, RuntimeOptions

if TYPE_CHECKING:
    from skilldeck.catalog import Catalog
    from skilldeck.search import DocTerms

__all__ = ["RuntimeSearch", "TermsStore"]

_HEADINGS_BYTES = 64 * 1024  # how much of each SKILL.md the search index reads
Progress = Callable[[int, int], None]  # (skills read so far, skills to read)


class TermsStore(Protocol):
    """Keeps the search terms of skills (``encode_terms`` bytes) for other processes."""

    def load_terms(self, metas: Sequence[Any]) -> list[bytes | None]:
        """The terms kept for each of ``metas`` (``None``: none kept)."""
        ...

    def save_terms(self, items: Sequence[tuple[Any, bytes]]) -> None:
        """Keep these terms (best effort: a failure only costs another process a read)."""
        ...


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
        self._docs: dict[int, tuple[Any, SearchDocument, DocTerms]] = {}
        self.documents_made = 0
        """Documents made from a skill's body so far (the expensive part of a build)."""
        self.background = False
        """Once an index exists, rebuild it in a thread and keep answering from the last
        one meanwhile (a server whose catalog changes often: no search waits for a
        rebuild; each sees the listing of at most one rebuild ago)."""
        self._rebuilding = False
        self.terms_store: TermsStore | None = None
        """Where each skill's terms are kept for other processes when the catalog has
        no cache folder (a database store: ``PostgresStore``)."""
        self.embed_background = False
        """Embed the skills of a new catalog in a thread, answering lexically meanwhile
        (``SemanticIndex(background=True)``; set by ``SkillRuntime.prepare_search``)."""

    def index(self, metas: list[Any], *, progress: Progress | None = None) -> SearchIndex:
        """The search index over ``metas`` (rebuilt when the listing changes).

        The catalog hands out the same metadata objects until it rescans, so the
        index is reused while every object is identical (held here, so identities
        cannot be recycled). ``progress(done, total)`` is called while skills are
        read for a build (not when the index is loaded or reused).
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
            index = self._build(metas, progress)
            if self.options.embedder is not None:
                from skilldeck.search import SemanticIndex

                # skill embeddings saved beside the index, under its key; the
                # previous index's embeddings of unchanged skills are reused
                previous = self._index if isinstance(self._index, SemanticIndex) else None
                index = SemanticIndex(
                    index,
                    self.options.embedder,
                    store=self._store,
                    reuse=previous,
                    documents=functools.partial(self._full_documents, metas),
                    background=self.embed_background,
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

    def _build(self, metas: list[Any], progress: Progress | None = None) -> SearchIndex:
        """Load the index saved for exactly these skills, else build and save it.

        Saved next to the catalog's metadata cache (``<cache>/search/``); a catalog
        without a cache (``cache=False``) builds in memory only. A build makes
        millions of small acyclic objects: the cycle collector waits."""
        with gc_paused():
            return self._load_or_build(metas, progress)

    def _load_or_build(self, metas: list[Any], progress: Progress | None) -> SearchIndex:
        from skilldeck.search import (
            doc_keys,
            index_key,
            index_rows,
            load_index,
            load_terms,
            save_index,
            save_terms,
        )

        folder = _search_cache_dir(self.catalog)
        self._store = None
        if folder is None:
            return self._build_shared(metas, progress)
        paths = [_skill_md_path(m) for m in metas]
        stamped = getattr(self.catalog, "skill_md_stamps", None)  # what the scan validated
        rows = index_rows(metas, paths, stamps=stamped(metas) if stamped is not None else None)
        salt = f"headings={self.options.search_headings}"
        key = index_key(rows, salt=salt)
        self._store = (folder, key)
        saved = load_index(folder, key)
        if saved is not None and saved.n == len(metas):
            # documents are made when a hit needs one, not 10,000 up front
            return SearchIndex(_Documents(metas, self._search_doc), _fielded=saved)
        # the skills that did not change since the last build keep their saved terms
        keys = doc_keys(rows, salt=salt)
        reuse = load_terms(folder) if not self._docs else {}
        stored = [reuse.get(k) for k in keys] if reuse else None
        docs, terms = self._documents(metas, progress, stored=stored)
        index = SearchIndex(docs, _terms=terms)
        save_index(folder, key, index.fielded)
        save_terms(folder, [(k, t, d.headings) for k, t, d in zip(keys, terms, docs, strict=True)])
        return index

    def _build_shared(self, metas: list[Any], progress: Progress | None) -> SearchIndex:
        """Build with the terms the catalog's ``terms_store`` keeps for each skill (a
        database shared by replicas), and give it the terms of the skills read here."""
        from skilldeck.search import decode_terms, encode_terms

        shared = self.terms_store
        if shared is None or not self.options.search_headings:
            docs, terms = self._documents(metas, progress)
            return self._follow(docs, terms)
        new = [m for m in metas if (f := self._docs.get(id(m))) is None or f[0] is not m]
        found = dict(zip(map(id, new), shared.load_terms(new), strict=True)) if new else {}
        stored = [None if (raw := found.get(id(m))) is None else decode_terms(raw) for m in metas]
        made = self.documents_made
        docs, terms = self._documents(metas, progress, stored=stored)
        if self.documents_made > made:  # read here: shared for the next replica
            fresh = [
                (meta, encode_terms(t, d.headings))
                for meta, t, d, s in zip(metas, terms, docs, stored, strict=True)
                if s is None and id(meta) in found
            ]
            shared.save_terms(fresh)
        return self._follow(docs, terms)

    def _follow(self, docs: list[SearchDocument], terms: list[DocTerms]) -> SearchIndex:
        """The last index brought up to ``docs`` in place (the postings of the skills
        that changed, not a build: catalogs without a cache folder are the ones that
        change often, a database store's), or a new one the next change can update.
        With an embedder, a new plain index (the semantic one wraps a copy of it)."""
        from skilldeck.search import LiveIndex

        if self.options.embedder is not None:
            return SearchIndex(docs, _terms=terms)
        last = self._index
        if isinstance(last, LiveIndex):
            last.update(docs, terms)
            return last
        return LiveIndex(docs, terms)

    def _documents(
        self,
        metas: list[Any],
        progress: Progress | None = None,
        *,
        stored: Sequence[tuple[DocTerms, tuple[str, ...]] | None] | None = None,
    ) -> tuple[list[SearchDocument], list[DocTerms]]:
        """A document per skill and its terms, the previous build's for every
        unchanged skill (reading a body and tokenizing are most of a build), or the
        terms and headings ``stored`` for it (in the order of ``metas``)."""
        kept: dict[int, tuple[Any, SearchDocument, DocTerms]] = {}
        docs, terms = [], []
        memory = pieces_memory()  # the bodies' pieces: let go before the index is built
        total = len(metas)
        for i, meta in enumerate(metas):
            found = self._docs.get(id(meta))
            kept_terms = stored[i] if stored else None
            if kept_terms is not None and (found is None or found[0] is not meta):
                doc = self._search_doc(meta, body=False, headings=kept_terms[1])
                found = (meta, doc, kept_terms[0])
            if found is None or found[0] is not meta:
                found = (meta, *self._analyse(meta, memory))
                self.documents_made += 1
                if progress is not None and self.documents_made % 250 == 0:
                    progress(i + 1, total)
            kept[id(meta)] = found
            docs.append(found[1])
            terms.append(found[2])
        if progress is not None:
            progress(total, total)
        self._docs = kept
        return docs, terms

    def _analyse(self, meta: Any, memory: Any = None) -> tuple[SearchDocument, DocTerms]:
        """The document of one skill (without its body words: hits never show them)
        and its terms, body included."""
        from skilldeck.search import doc_terms

        if not self.options.search_headings:
            doc = self._search_doc(meta, body=False)
            return doc, doc_terms(doc)
        headings, prose, usage = body_parts(self._body_head(meta))
        doc = self._search_doc(meta, body=False, headings=headings)
        return doc, doc_terms(doc, body=prose, usage=usage, memory=memory)

    def _full_documents(self, metas: list[Any]) -> list[SearchDocument]:
        """The documents of ``metas`` with their body fields (the usage sections are
        what the model embeds besides the listing; the index's own documents leave
        the body out). Read only when skills are embedded, which costs far more."""
        return [self._search_doc(m) for m in metas]

    def _search_doc(
        self, meta: Any, *, body: bool = True, headings: tuple[str, ...] = ()
    ) -> SearchDocument:
        """The document of one skill; with ``body``, its body's headings and words
        (read here), else ``headings`` as given."""
        words = usage = ""
        if body and self.options.search_headings:
            headings, prose, used = body_parts(self._body_head(meta))
            words, usage = " ".join(prose), " ".join(used)
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
        # the first _HEADINGS_BYTES of the SKILL.md as the catalog reads it (its folder
        # inside the allowed roots, the file through the contained reader): one
        # swapped since the listing for a link out of its folder, or for a pipe, is
        # refused and adds nothing; the store's full load (file index and all) only
        # for a catalog without that read
        read = getattr(self.catalog, "skill_md_bytes", None)
        if read is not None and _skill_md_path(meta) is not None:
            try:
                head = read(_address(meta), max_bytes=_HEADINGS_BYTES, truncate=True).data
            except (SkillError, OSError):
                return ""
            from skilldeck.format import split_frontmatter  # the catalog's own rule

            # a file of the bound or more comes back as its first _HEADINGS_BYTES,
            # incomplete
            text = head.decode("utf-8", errors="replace")
            return split_frontmatter(text, complete=len(head) < _HEADINGS_BYTES).body
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


def _address(meta: Any) -> str:
    source = getattr(meta, "source", "")
    return f"{source}:{meta.name}" if source else str(meta.name)
