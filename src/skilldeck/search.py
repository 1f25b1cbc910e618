"""Finding skills for a request: the search index and suggestions.

A public facade: every name here is defined in a private module of skilldeck.
"""

from __future__ import annotations

from skilldeck._embedding import (
    DEFAULT_EMBEDDING_MODEL as DEFAULT_EMBEDDING_MODEL,
)
from skilldeck._embedding import (
    DEFAULT_STATIC_MODEL as DEFAULT_STATIC_MODEL,
)
from skilldeck._embedding import (
    FITTED_ABSTENTION as FITTED_ABSTENTION,
)
from skilldeck._embedding import (
    SentenceEmbedder as SentenceEmbedder,
)
from skilldeck._embedding import (
    StaticEmbedder as StaticEmbedder,
)
from skilldeck._embedding import (
    configured_embedder as configured_embedder,
)
from skilldeck._embedding import (
    load_embedder as load_embedder,
)
from skilldeck._embedding import (
    model_location as model_location,
)
from skilldeck._embedding import (
    static_embedder as static_embedder,
)
from skilldeck._routing import (
    evaluate_routing as evaluate_routing,
)
from skilldeck._routing import (
    load_routing_cases as load_routing_cases,
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
from skilldeck._semantic import (
    fused_confidence as fused_confidence,
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
    "DEFAULT_STATIC_MODEL",
    "FITTED_ABSTENTION",
    "Embedder",
    "SearchDocument",
    "SearchHit",
    "SearchIndex",
    "SemanticIndex",
    "SentenceEmbedder",
    "StaticEmbedder",
    "Suggestion",
    "configured_embedder",
    "derived_phrases",
    "evaluate_routing",
    "extract_headings",
    "fused_confidence",
    "load_embedder",
    "load_routing_cases",
    "model_location",
    "order_by_relevance",
    "static_embedder",
    "suggest",
]
