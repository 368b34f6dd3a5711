"""The plumbing under the wiki and script parsers: mwparserfromhell for wikitext, lxml for HTML, one shared
text module (extractors/text.py) that `wiki/` uses instead of importing `script/`."""

from __future__ import annotations

import ast
from pathlib import Path

from extractors.script.html import html_to_text
from extractors.text import join_lines, unquote, unquote_pair
from extractors.wiki import parse_wiki_text

EXTRACTORS = Path(__file__).resolve().parents[2] / "extractors"


def summary(quotes):
    return [(q.kind, q.name, q.text, q.extra) for q in quotes]


def test_wiki_does_not_import_script():
    for path in sorted((EXTRACTORS / "wiki").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                assert "script" not in (node.module or ""), f"{path.name} imports {node.module}"


def test_quote_template_holding_a_piped_link_keeps_its_words_and_speaker():
    # a hand split on '|' cut the template inside [[Alice (character)|Alice]]: wrong words, speaker 'Alice.'
    text = ("== Quotes ==\n* {{Quote|Curiouser and curiouser! cried [[Alice (character)|Alice]].|Alice|"
            "[[Alice's Adventures in Wonderland|Chapter 2]]}}\n")
    assert summary(parse_wiki_text(text)) == [
        ("dialogue", "Alice", "Curiouser and curiouser! cried Alice.", {"episode": "Chapter 2"})]


def test_wikitext_table_read_by_mwparserfromhell_with_caption_rowspan_and_markup():
    text = ("{| class=\"wikitable\"\n|+ Voice lines\n! Title !! Details\n|-\n| Hello || ''Nice'' to meet you, my dear "
            "[[Friendship|friend]].\n|-\n| rowspan=\"2\" | Chat || Lovely weather today, isn't it, friend?\n|-\n"
            "| Indeed, a fine day for a long walk.\n|}")
    assert summary(parse_wiki_text(text, character="Alice")) == [
        ("narration", None, "Voice-over: Hello", {"title": "Hello"}),
        ("dialogue", "Alice", "Nice to meet you, my dear friend.", {"title": "Hello"}),
        ("narration", None, "Voice-over: Chat", {"title": "Chat"}),
        ("dialogue", "Alice", "Lovely weather today, isn't it, friend? Indeed, a fine day for a long walk.",
         {"title": "Chat"}),
    ]


def test_voice_lines_in_a_definition_list_without_end_tags():
    # HTML lets a page leave </dt> and </dd> out; lxml closes them as a browser does, so the list is
    # read as title/line pairs (the standard library's parser saw no pairs and found no quotes at all)
    page = ("<html><head><title>Alice/Voice Lines | Wonderland Wiki</title></head><body><h1>Alice/Voice Lines</h1>"
            "<dl><dt>Hello<dd>Oh, how do you do? I am Alice, pleased to meet you."
            "<dt>Chat: Rabbit<dd>I must follow that White Rabbit, he is always so late."
            "<dt>Chat: Tea<dd>It is always six o'clock here, so it is always tea-time."
            "<dt>Goodbye<dd>Goodbye, goodbye! I shall have to be going home now.</dl></body></html>")
    quotes = parse_wiki_text(page)
    assert [(q.kind, q.name, q.extra["title"]) for q in quotes] == [
        ("narration", None, "Hello"), ("dialogue", "Alice", "Hello"),
        ("narration", None, "Chat: Rabbit"), ("dialogue", "Alice", "Chat: Rabbit"),
        ("narration", None, "Chat: Tea"), ("dialogue", "Alice", "Chat: Tea"),
        ("narration", None, "Goodbye"), ("dialogue", "Alice", "Goodbye"),
    ]
    assert quotes[1].text == "Oh, how do you do? I am Alice, pleased to meet you."


def test_script_page_text_from_lxml():
    page = ("<html><head><title>x</title><style>p {}</style></head><body><p>ROSALIND. Now my coz,<br>"
            "what says &amp; Celia?</p><!-- note --><p>CELIA. Nothing.</p></body></html>")
    assert html_to_text(page).strip("\n") == "ROSALIND. Now my coz,\nwhat says & Celia?\n\nCELIA. Nothing."
    imsdb = "<html><body><b>nav</b><pre>\n<b>                    JOHN</b>\n          Hello &amp; goodbye.\n</pre></body></html>"
    assert html_to_text(imsdb).strip("\n") == "                    JOHN\n          Hello & goodbye."


def test_shared_text_helpers():
    assert unquote("“Quite so”.") == "Quite so."
    assert unquote("„Zitat“") == "Zitat"
    assert unquote("「台词」") == "台词"
    assert unquote("'We're lost' and 'found'") == "'We're lost' and 'found'"  # two quotes: unchanged
    assert unquote_pair("「好啊」") == "好啊"
    assert unquote_pair("“a” “b”") == "“a” “b”"
    assert join_lines(["春日说", "好啊", "then English", "words"]) == "春日说好啊 then English words"
