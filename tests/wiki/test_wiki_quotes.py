"""Wiki quote pages: attributed text quotes and HTML voice-line tables."""

from __future__ import annotations

import pytest

from extractors.characters import AliasResolver, Character
from extractors.errors import InputError
from extractors.wiki import extract_wiki, page_character_from_title
from extractors.wiki.quotes import split_attribution

TEXT_PAGE = """\
As You Like It — quotes

== Act II ==
* "All the world's a stage, and all the men and women merely players." — Jaques, "Act II, Scene VII"

* “Sweet are the uses of adversity” – Duke Senior (Act II, Scene I)

== Act IV ==
Men have died from time to time, and worms have eaten them,
but not for love.
-- Rosalind, "Act IV, Scene I"

Orlando: I would not be cured, youth.
Ros.: I would cure you, if you would but call me Rosalind.

This page lists quotes from the play, first printed in 1623; see http://example.org for sources.
"""

VOICE_HTML = """\
<!DOCTYPE html>
<html><head><meta charset="utf-8">
<title>Zhongli/Voice-Overs | Genshin Impact Wiki | Fandom</title>
<script>var fake = "<table><tr><td>not</td><td>a row</td></tr></table>";</script>
<style>td { color: red }</style></head>
<body>
<h1 class="page-header__title">Zhongli/Voice-Overs</h1>
<p>Zhongli's voice-overs, heard in the Character Archive.</p>
<h2><span class="mw-headline" id="Story">Story</span></h2>
<table class="wikitable">
<tbody>
<tr><th>Title</th><th>Details</th></tr>
<tr><td>Hello</td><td><span class="audio-button"><audio src="vo_zhongli_hello.ogg"></audio><button>Play</button></span>I am Zhongli, a consultant of the Wangsheng Funeral Parlor.</td></tr>
<tr><td>Chat: Contracts</td><td>Contracts are the bedrock of trade.<br><small>Friendship Lv. 4</small></td></tr>
<tr><th>About Hu Tao</th><td>Hu Tao&#8230; She is the 77th Director of the Wangsheng Funeral Parlor.</td></tr>
<tr><td>About Us: Empty</td><td></td></tr>
</tbody>
</table>
<h2>Combat</h2>
<table>
<tr><td>Elemental Burst</td><td>Bear witness to the wrath of the heavens!</td></tr>
</table>
</body></html>
"""

RES = AliasResolver([
    Character("rosalind", "Rosalind", "As You Like It", aliases=["ROSALIND", "Ros."]),
    Character("zhongli", "Zhongli", "Genshin Impact", aliases=["钟离", "Rex Lapis", "Morax"]),
])


def test_text_quote_page(tmp_path):
    p = tmp_path / "quotes.txt"
    p.write_text(TEXT_PAGE, encoding="utf-8")
    lines = extract_wiki(p, "asyoulik", resolver=RES)
    got = [(ln.unit, ln.kind, ln.speaker, ln.name, ln.text, ln.extra) for ln in lines]
    assert got == [
        ("Act II #1", "dialogue", "jaques", "Jaques", "All the world's a stage, and all the men and women merely players.",
         {"episode": "Act II, Scene VII"}),
        ("Act II #2", "dialogue", "duke_senior", "Duke Senior", "Sweet are the uses of adversity", {"episode": "Act II, Scene I"}),
        ("Act IV #1", "dialogue", "rosalind", "Rosalind",
         "Men have died from time to time, and worms have eaten them, but not for love.", {"episode": "Act IV, Scene I"}),
        ("Act IV #2", "dialogue", "orlando", "Orlando", "I would not be cured, youth.", {}),
        ("Act IV #2", "dialogue", "rosalind", "Ros.", "I would cure you, if you would but call me Rosalind.", {}),
    ]
    assert [ln.index for ln in lines] == list(range(5))
    assert all(ln.evidence == "script" and ln.source == "quotes.txt" for ln in lines)


def test_split_attribution():
    assert split_attribution('Jaques, "Act II, Scene VII"') == ("Jaques", "Act II, Scene VII")
    assert split_attribution("Duke Senior (Act II)") == ("Duke Senior", "Act II")
    assert split_attribution("Sherlock Holmes in “A Scandal in Bohemia”") == ("Sherlock Holmes", "A Scandal in Bohemia")
    assert split_attribution("Rosalind") == ("Rosalind", None)


def test_voice_table_html_page(tmp_path):
    p = tmp_path / "zhongli.html"
    p.write_text(VOICE_HTML, encoding="utf-8")
    lines = extract_wiki(p, "genshin", resolver=RES)
    got = [(ln.unit, ln.kind, ln.speaker, ln.text) for ln in lines]
    assert got == [
        ("Story", "narration", None, "Voice-over: Hello"),
        ("Story", "dialogue", "zhongli", "I am Zhongli, a consultant of the Wangsheng Funeral Parlor."),
        ("Story", "narration", None, "Voice-over: Chat: Contracts"),
        ("Story", "dialogue", "zhongli", "Contracts are the bedrock of trade."),
        ("Story", "narration", None, "Voice-over: About Hu Tao"),
        ("Story", "dialogue", "zhongli", "Hu Tao… She is the 77th Director of the Wangsheng Funeral Parlor."),
        ("Combat", "narration", None, "Voice-over: Elemental Burst"),
        ("Combat", "dialogue", "zhongli", "Bear witness to the wrath of the heavens!"),
    ]
    assert lines[1].extra == {"title": "Hello"} and lines[1].name == "Zhongli"


def test_voice_table_character_option_wins_over_title(tmp_path):
    page = VOICE_HTML.replace("<h1 class=\"page-header__title\">Zhongli/Voice-Overs</h1>", "").replace(
        "Zhongli/Voice-Overs | Genshin Impact Wiki | Fandom", "Voice-Overs")
    p = tmp_path / "vo.html"
    p.write_text(page, encoding="utf-8")
    lines = extract_wiki(p, "genshin", resolver=RES, character="Morax")
    assert {ln.speaker for ln in lines if ln.kind == "dialogue"} == {"zhongli"}


def test_voice_table_without_any_character_is_an_error(tmp_path):
    page = "<html><body><table><tr><td>Hello</td><td>Greetings, traveler.</td></tr></table></body></html>"
    p = tmp_path / "vo.html"
    p.write_text(page, encoding="utf-8")
    with pytest.raises(InputError, match="pass --character"):
        extract_wiki(p, "genshin")


def test_chinese_voice_table_in_gb18030(tmp_path):
    page = ("<html><head><title>钟离/语音 - 原神WIKI</title></head><body><table>"
            "<tr><th>标题</th><th>台词</th></tr>"
            "<tr><td>初次见面…</td><td>往生堂客卿，钟离。</td></tr>"
            "<tr><td>关于我们·契约</td><td>契约是商业的基石。<br>好感度达到4级后解锁</td></tr>"
            "</table></body></html>")
    p = tmp_path / "zl.html"
    p.write_bytes(page.encode("gb18030"))
    lines = extract_wiki(p, "genshin", resolver=RES)
    assert [(ln.speaker, ln.text) for ln in lines if ln.kind == "dialogue"] == [
        ("zhongli", "往生堂客卿，钟离。"), ("zhongli", "契约是商业的基石。")]
    assert page_character_from_title("钟离/语音 - 原神WIKI") == "钟离"


def test_page_without_quotes_is_an_error(tmp_path):
    p = tmp_path / "plain.txt"
    p.write_text("This character appears in season one.\nSee also: the episode list.\n")
    with pytest.raises(InputError, match="no quotes found"):
        extract_wiki(p, "w")
