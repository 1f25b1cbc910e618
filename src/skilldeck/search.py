"""Finding skills for a request: the search index and suggestions.

A public facade: every name here is defined in a private module of skilldeck.
"""

from __future__ import annotations

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
    "Embedder",
    "SearchDocument",
    "SearchHit",
    "SearchIndex",
    "SemanticIndex",
    "Suggestion",
    "derived_phrases",
    "extract_headings",
    "order_by_relevance",
    "suggest",
]
