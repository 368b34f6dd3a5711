"""The Kor schema (the ChatHaruhi paper's role / action / dialogue), the instruction, and few-shot examples.

Built-in examples exist in English and Chinese; the ones matching the novel's language are used. A work can bring its
own in `configs/novel_examples/<work>.yaml` (format: docs/novel.md, "Few-shot examples of a work").
"""

from __future__ import annotations

from pathlib import Path

import yaml

from extractors.errors import InputError

SCHEMA_ID = "script"
NO_SPEAKER_ROLES = {"narrator", "scene", "旁白", "场景", "unknown", "?", "-", "none", "nobody", "未知"}
NO_DIALOGUE = {"-", "—", "", "none"}

INSTRUCTION = (
    "You adapt a passage of a novel into a script. Each quotation in the passage is marked: "
    "[Name] before a quotation means its speaker is already known; [?] before a quotation means its "
    "speaker is unknown and you must work it out from the context (speech tags, pronouns, who is "
    "present, turn-taking). For every quotation output one row, in the order of the text: role = "
    "who speaks it, action = what the speaker does while speaking ('-' if nothing), dialogue = the "
    "quoted words exactly as written (without the mark and the quotation marks). For narration in "
    "which nobody speaks you may output a row with role 'narrator' (or 'scene') and dialogue '-'. "
    "For role use one of these candidate names when the speaker is one of them, otherwise the name "
    "the text uses, or 'unknown' if you cannot tell: {candidates}\n\n"
    "{type_description}\n\n{format_instructions}\n\n"
)

_BUILTIN = {
    "en": [
        {
            "text": (
                "Mary looked up from her book as the door opened.\n\n"
                '[?] "You are late again," she said. "The carriage has been waiting this half hour."\n\n'
                '[Tom Harding] "Then it may wait a little longer," replied her brother, throwing his hat '
                "on the chair.\n\n"
                '[?] "Tom! Mother will hear of this."\n\n'
                "He only laughed."
            ),
            "script": [
                {"role": "narrator", "action": "Mary looks up from her book as the door opens", "dialogue": "-"},
                {
                    "role": "Mary Harding",
                    "action": "said",
                    "dialogue": "You are late again, the carriage has been waiting this half hour.",
                },
                {
                    "role": "Tom Harding",
                    "action": "replied, throwing his hat on the chair",
                    "dialogue": "Then it may wait a little longer,",
                },
                {"role": "Mary Harding", "action": "-", "dialogue": "Tom! Mother will hear of this."},
                {"role": "Tom Harding", "action": "laughed", "dialogue": "-"},
            ],
        }
    ],
    "zh": [
        {
            "text": (
                "窗外下着雨，屋里只点着一盏灯。\n"
                "[?] 王芳放下茶杯，说道：“你今天怎么回来得这么晚？”\n"
                "[李明] 李明笑道：“路上遇见了老张，多说了几句。”\n"
                "[?] “又是老张！他能有什么要紧事？”\n"
                "李明没有答话，只顾低头吃饭。"
            ),
            "script": [
                {"role": "scene", "action": "窗外下着雨，屋里只点着一盏灯", "dialogue": "-"},
                {"role": "王芳", "action": "放下茶杯", "dialogue": "你今天怎么回来得这么晚？"},
                {"role": "李明", "action": "笑", "dialogue": "路上遇见了老张，多说了几句。"},
                {"role": "王芳", "action": "-", "dialogue": "又是老张！他能有什么要紧事？"},
                {"role": "李明", "action": "低头吃饭", "dialogue": "-"},
            ],
        }
    ],
}


def text_language(text: str) -> str:
    """'zh' when CJK characters make up a fair share of the letters, else 'en'."""
    sample = text[:20000]
    cjk = sum(1 for ch in sample if "\u4e00" <= ch <= "\u9fff")
    latin = sum(1 for ch in sample if ch.isascii() and ch.isalpha())
    return "zh" if cjk > 0.3 * max(1, latin) else "en"


def builtin_examples(language: str | None = None) -> list[dict]:
    if language in _BUILTIN:
        return [dict(e) for e in _BUILTIN[language]]
    return [dict(e) for lang in ("en", "zh") for e in _BUILTIN[lang]]


def _check_examples(examples, where) -> list[tuple[str, list[dict]]]:
    """Normalise to Kor's (text, [row, ...]) pairs; InputError naming the bad example."""
    out = []
    if not isinstance(examples, (list, tuple)):
        raise InputError("examples must be a list", where)
    for n, ex in enumerate(examples, start=1):
        if isinstance(ex, dict):
            text, rows = ex.get("text"), ex.get("script")
        elif isinstance(ex, (list, tuple)) and len(ex) == 2:
            text, rows = ex
        else:
            raise InputError(f"example {n}: needs 'text' and 'script'", where)
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"example {n}: 'text' must be a non-empty string", where)
        if not isinstance(rows, list) or not rows:
            raise InputError(f"example {n}: 'script' must be a non-empty list of rows", where)
        clean = []
        for r, row in enumerate(rows, start=1):
            if not isinstance(row, dict) or not isinstance(row.get("role"), str) or not isinstance(
                row.get("dialogue"), str
            ):
                raise InputError(f"example {n}, script row {r}: needs string 'role' and 'dialogue'", where)
            unknown = set(row) - {"role", "action", "dialogue"}
            if unknown:
                raise InputError(f"example {n}, script row {r}: unknown key(s) {', '.join(sorted(unknown))}", where)
            clean.append({"role": row["role"], "action": str(row.get("action") or "-"), "dialogue": row["dialogue"]})
        out.append((text.strip(), clean))
    return out


def load_examples(path: str | Path, language: str | None = None) -> list[tuple[str, list[dict]]]:
    """Read `configs/novel_examples/<work>.yaml` (format in the module docstring)."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("no such examples file", path) from None
    except yaml.YAMLError as e:
        raise InputError(f"not valid YAML ({e.__class__.__name__})", path) from None
    if isinstance(data, list):
        data = {"examples": data}
    if not isinstance(data, dict) or "examples" not in data:
        raise InputError("examples file needs a top-level 'examples:' list", path)
    unknown = set(data) - {"examples", "mode"}
    if unknown:
        raise InputError(f"unknown key(s) {', '.join(sorted(unknown))}", path)
    mode = data.get("mode", "replace")
    if mode not in ("replace", "extend"):
        raise InputError(f"mode must be 'replace' or 'extend' (got {mode!r})", path)
    own = _check_examples(data["examples"], path)
    if mode == "extend":
        return _check_examples(builtin_examples(language), "<built-in>") + own
    return own


def resolve_examples(examples, examples_path, language: str) -> list[tuple[str, list[dict]]]:
    """`examples` (given in code) wins, then an existing `examples_path`, then the built-in ones."""
    if examples is not None:
        return _check_examples(examples, "<examples>")
    if examples_path is not None and Path(examples_path).exists():
        return load_examples(examples_path, language)
    return _check_examples(builtin_examples(language), "<built-in>")


def import_kor():
    """Import Kor, or say exactly what to install: Kor 1.x needs langchain<1 (`langchain.chains`)
    and pandas<2, which cannot live with langchain-core 1.x and numpy 2; Kor 3.0 runs on
    langchain-core alone (it declares langchain-core<0.4 but works on 1.x: install it --no-deps)."""
    try:
        import kor
        from kor import Object, Text, create_extraction_chain  # noqa: F401
    except Exception as e:  # ImportError, or pandas built against another numpy (ValueError)
        raise InputError(
            f"the LLM path needs Kor >= 3.0 with pandas >= 2.2 ({type(e).__name__}: {str(e)[:120]}); "
            "install with: pip install 'pandas>=2.2,<3' && pip install --no-deps kor==3.0.0"
        ) from None
    major = int(str(getattr(kor, "__version__", "0")).split(".")[0] or 0)
    if major < 3:
        raise InputError(f"Kor {kor.__version__} is too old for langchain-core 1.x: pip install --no-deps kor==3.0.0")
    return kor


def build_schema(examples: list[tuple[str, list[dict]]]):
    """The Kor Object: many rows of role / action / dialogue."""
    kor = import_kor()
    Object, Text = kor.Object, kor.Text

    return Object(
        id=SCHEMA_ID,
        description="The novel passage adapted into a script, one row per quotation or narration, in text order",
        attributes=[
            Text(id="role", description="who speaks the quotation; 'narrator' or 'scene' when nobody speaks"),
            Text(id="action", description="what the speaker does while speaking; '-' if nothing"),
            Text(id="dialogue", description="the quoted words exactly as written; '-' when nobody speaks"),
        ],
        examples=examples,
        many=True,
    )


def candidate_list(characters) -> str:
    """'Elizabeth Bennet (also: Lizzy, Eliza); Mr. Darcy (also: Darcy)' for the instruction."""
    parts = []
    for ch in characters:
        aliases = [a for a in ch.aliases if a and a != ch.name]
        parts.append(f"{ch.name} (also: {', '.join(aliases)})" if aliases else ch.name)
    return "; ".join(parts) if parts else "(none configured)"


def build_chain(llm, characters, examples: list[tuple[str, list[dict]]]):
    """Kor's extraction chain (prompt | llm | parser) with our instruction and a pydantic validator."""
    create_extraction_chain = import_kor().create_extraction_chain
    from kor.validators import PydanticValidator
    from langchain_core.prompts import PromptTemplate
    from pydantic import BaseModel

    class ScriptRow(BaseModel):
        role: str
        action: str | None = "-"
        dialogue: str

    instruction = PromptTemplate(
        input_variables=["type_description", "format_instructions"],
        partial_variables={"candidates": candidate_list(characters)},
        template=INSTRUCTION,
    )
    return create_extraction_chain(
        llm,
        build_schema(examples),
        encoder_or_encoder_class="json",
        input_formatter="triple_quotes",
        instruction_template=instruction,
        validator=PydanticValidator(ScriptRow, many=True),
    )
