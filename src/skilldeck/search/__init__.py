"""Finding skills for a request: the search index and suggestions.

The package's facade (``skilldeck._facade``): names load on first use.
"""

from skilldeck._facade import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck.search._bm25 import (
        CONFIDENT as CONFIDENT,
        SearchDocument as SearchDocument,
        SearchHit as SearchHit,
        SearchIndex as SearchIndex,
        body_fields as body_fields,
        body_parts as body_parts,
        extract_headings as extract_headings,
        pieces_memory as pieces_memory,
        tokenize as tokenize,
    )
    from skilldeck.search._embedding import (
        DEFAULT_EMBEDDING_MODEL as DEFAULT_EMBEDDING_MODEL,
        DEFAULT_STATIC_MODEL as DEFAULT_STATIC_MODEL,
        FITTED_ABSTENTION as FITTED_ABSTENTION,
        SentenceEmbedder as SentenceEmbedder,
        StaticEmbedder as StaticEmbedder,
        configured_embedder as configured_embedder,
        load_embedder as load_embedder,
        model_location as model_location,
        static_embedder as static_embedder,
    )
    from skilldeck.search._live import LiveIndex as LiveIndex
    from skilldeck.search._quality import (
        CatalogFinding as CatalogFinding,
        CatalogReport as CatalogReport,
        lint_catalog as lint_catalog,
    )
    from skilldeck.search._routing import (
        compare_routers as compare_routers,
        evaluate_routing as evaluate_routing,
        load_routing_cases as load_routing_cases,
    )
    from skilldeck.search._semantic import (
        Embedder as Embedder,
        SemanticIndex as SemanticIndex,
        fused_confidence as fused_confidence,
    )
    from skilldeck.search._store import (
        FORMAT as FORMAT,
        decode_terms as decode_terms,
        doc_keys as doc_keys,
        encode_terms as encode_terms,
        index_key as index_key,
        index_rows as index_rows,
        load_index as load_index,
        load_terms as load_terms,
        save_index as save_index,
        save_terms as save_terms,
    )
    from skilldeck.search._suggest import (
        Suggestion as Suggestion,
        derived_phrases as derived_phrases,
        order_by_relevance as order_by_relevance,
        suggest as suggest,
    )
    from skilldeck.search._terms import (
        DocTerms as DocTerms,
        doc_terms as doc_terms,
    )
else:
    # public name -> the module defining it (relative: this package)
    _PUBLIC = {
        "FORMAT": "._store",
        "CONFIDENT": "._bm25",
        "SearchDocument": "._bm25",
        "SearchHit": "._bm25",
        "SearchIndex": "._bm25",
        "extract_headings": "._bm25",
        "DEFAULT_EMBEDDING_MODEL": "._embedding",
        "DEFAULT_STATIC_MODEL": "._embedding",
        "FITTED_ABSTENTION": "._embedding",
        "SentenceEmbedder": "._embedding",
        "StaticEmbedder": "._embedding",
        "configured_embedder": "._embedding",
        "load_embedder": "._embedding",
        "model_location": "._embedding",
        "static_embedder": "._embedding",
        "compare_routers": "._routing",
        "evaluate_routing": "._routing",
        "load_routing_cases": "._routing",
        "Embedder": "._semantic",
        "SemanticIndex": "._semantic",
        "fused_confidence": "._semantic",
        "Suggestion": "._suggest",
        "derived_phrases": "._suggest",
        "order_by_relevance": "._suggest",
        "suggest": "._suggest",
    }
    # names skilldeck's other packages use, outside the public surface
    _INTERNAL = {
        "body_fields": "._bm25",
        "body_parts": "._bm25",
        "pieces_memory": "._bm25",
        "tokenize": "._bm25",
        "LiveIndex": "._live",
        "CatalogFinding": "._quality",
        "CatalogReport": "._quality",
        "lint_catalog": "._quality",
        "decode_terms": "._store",
        "doc_keys": "._store",
        "encode_terms": "._store",
        "index_key": "._store",
        "index_rows": "._store",
        "load_index": "._store",
        "load_terms": "._store",
        "save_index": "._store",
        "save_terms": "._store",
        "DocTerms": "._terms",
        "doc_terms": "._terms",
    }
    lazy(__name__, globals(), _PUBLIC, _INTERNAL)
