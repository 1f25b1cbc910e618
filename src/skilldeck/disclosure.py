"""What the model is shown: the skills block, a skill's body, and bundled files.

A public facade: every name here is defined in a private module of skilldeck.
"""

from __future__ import annotations

from skilldeck._disclosure import (
    FileContent as FileContent,
)
from skilldeck._disclosure import (
    Tier1Format as Tier1Format,
)
from skilldeck._disclosure import (
    plan_skills as plan_skills,
)
from skilldeck._disclosure import (
    read_skill_file as read_skill_file,
)
from skilldeck._disclosure import (
    render_json as render_json,
)
from skilldeck._disclosure import (
    render_markdown as render_markdown,
)
from skilldeck._disclosure import (
    render_skills as render_skills,
)
from skilldeck._disclosure import (
    render_xml as render_xml,
)
from skilldeck._disclosure import (
    skill_payload as skill_payload,
)
from skilldeck._tree import (
    is_text as is_text,
)
from skilldeck._tree import (
    mime_type as mime_type,
)

__all__ = [
    "FileContent",
    "Tier1Format",
    "is_text",
    "mime_type",
    "plan_skills",
    "read_skill_file",
    "render_json",
    "render_markdown",
    "render_skills",
    "render_xml",
    "skill_payload",
]
