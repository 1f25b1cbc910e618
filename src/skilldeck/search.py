"""Finding skills for a request: the search index and suggestions.

A public facade: every name here is defined in a private module of skilldeck.
"""

from __future__ import annotations

from skilldeck._embedding import (
    DEFAULT_EMBEDDING_MODEL as DEFAULT_EMBEDDING_MODEL,
)
from skilldeck._embedding import (
    StaticEmbedder as StaticEmbedder,
)
from skilldeck._embedding import (
    configured_embedder as configured_embedder,
)
from skilldeck._embedding import (
    static_embedder as static_embedder,
)
from skilldeck._search import (
    CONFIDENT as CONFIDENT,
)
from skilldeck._search import (
    SearchDocument as SearchDocument,
)
from skilldeck._search import (
    SearchHit as SearchHit,
)
from skilldeck._search import (
    SearchIndex as SearchIndex,
)
from skilldeck._search import (
    extract_headings as extract_headings,
)
from skilldeck._semantic import (
    Embedder as Embedder,
)
from skilldeck._semantic import (
    SemanticIndex as SemanticIndex,
)
from skilldeck._suggest import (
    Suggestion as Suggestion,
)
from skilldeck._suggest import (
    derived_phrases as derived_phrases,
)
from skilldeck._suggest import (
    order_by_relevance as order_by_relevance,
)
from skilldeck._suggest import (
    suggest as suggest,
)

__all__ = [
    "CONFIDENT",
    "DEFAULT_EMBEDDING_MODEL",
    "Embedder",
    "SearchDocument",
    "SearchHit",
    "SearchIndex",
    "SemanticIndex",
    "StaticEmbedder",
    "Suggestion",
    "configured_embedder",
    "derived_phrases",
    "extract_headings",
    "order_by_relevance",
    "static_embedder",
    "suggest",
]
