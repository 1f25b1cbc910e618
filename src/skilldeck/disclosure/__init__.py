"""What the model is shown: the skills block, a skill's body, and bundled files.

The package's facade (``skilldeck._facade``): names load on first use.
"""

from skilldeck._facade import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck._tree import is_text as is_text, mime_type as mime_type
    from skilldeck.disclosure._disclosure import (
        FileContent as FileContent,
        SkillListFormat as SkillListFormat,
        plan_skills as plan_skills,
        read_skill_file as read_skill_file,
        render_json as render_json,
        render_markdown as render_markdown,
        render_skills as render_skills,
        render_xml as render_xml,
        skill_payload as skill_payload,
        xml_escape as xml_escape,
    )
else:
    # public name -> the module defining it (relative: this package)
    _PUBLIC = {
        "FileContent": "._disclosure",
        "SkillListFormat": "._disclosure",
        "plan_skills": "._disclosure",
        "read_skill_file": "._disclosure",
        "render_json": "._disclosure",
        "render_markdown": "._disclosure",
        "render_skills": "._disclosure",
        "render_xml": "._disclosure",
        "skill_payload": "._disclosure",
        "is_text": "skilldeck._tree",
        "mime_type": "skilldeck._tree",
    }
    # names skilldeck's other packages use, outside the public surface
    _INTERNAL = {
        "xml_escape": "._disclosure",
    }
    lazy(__name__, globals(), _PUBLIC, _INTERNAL)
