"""Chinese personal names inside a speech tag's subject, where cutting at the first predicate character
would cut the name: compound surnames (`诸葛亮`, `司马懿`, `令狐冲`: not `葛亮`, `马懿`, nothing), and a name
that holds a character which elsewhere begins a predicate (`湘云道`, `赵云曰`, `法正曰`: `云` also says,
`正` is also an adverb), as jieba's tagger reads the name.
"""

from __future__ import annotations

# two-character surnames (simplified and traditional). Not `司徒`/`司空`: as often a title (`司徒王允`).
COMPOUND_SURNAMES = frozenset(
    "诸葛 諸葛 司马 司馬 夏侯 欧阳 歐陽 上官 东方 東方 皇甫 公孙 公孫 太史 令狐 慕容 尉迟 尉遲 长孙 長孫 宇文 端木 "
    "独孤 獨孤 南宫 南宮 西门 西門 轩辕 軒轅 呼延 澹台 公冶 宗政 濮阳 濮陽 淳于 单于 單于 申屠 钟离 鍾離 赫连 赫連 "
    "拓跋 百里 东郭 東郭 左丘 闻人 聞人 万俟 萬俟".split())

_NAME_FLAGS = ("nr", "ns", "nz")  # jieba's person (nr, nrfg, nrt), place and proper-noun flags: `湘云` is a place to it


def has_compound_surname(name: str) -> bool:
    """Whether a name opens with a two-character surname and has a given name after it."""
    return len(name) >= 3 and name[:2] in COMPOUND_SURNAMES


def name_word_end(words: list[tuple[str, str]], k: int, glued: set, surnames: set) -> int:
    """Where the subject ends when a cut at k would leave a name jieba reads across the cut short of its last
    character: a two-character name cut after one (`湘云道` after `湘`; `何进笑曰` after `何`: jieba's `何进笑`, the
    manner in `glued` dropped), or a surname and two characters cut after two (`史湘云道` after `史湘`): k + 1
    then; else k. The caller checks the character it takes in is one a name may end with."""
    if k not in (1, 2) or not words:
        return k
    w, f = words[0]
    while len(w) > k + 1 and w[-1] in glued:
        w = w[:-1]
    ok = len(w) == k + 1 and f.startswith(_NAME_FLAGS) and (k == 1 or w[0] in surnames)
    return k + 1 if ok else k
