"""Framework adapters: ``skilldeck.integrations.langchain`` and
``skilldeck.integrations.pydantic_ai`` (each needs its framework installed; import
the one you use)."""

__all__: list[str] = []
