"""The Chinese words cast discovery and tag reading share: surnames, title and kinship endings, where a clause's
predicate begins, and jieba's words and part-of-speech flags (loaded once)."""

from __future__ import annotations

import logging
import re
from functools import lru_cache

# where the predicate of a clause begins (after at least one subject character)
_PRED = set("闻聞知喜伏谕諭召共令呼唤喚顾顧指拜谓謂牵牽掩乘慌告奏谏諫禀稟报報命遣想忙便又也因乃遂方才即就亦都皆齐齊只却卻还還仍先再复復连連急不笑冷含陪叹嘆听聽见見看道说說问問答回叫喝嚷骂罵"
            "念想哭怒惊驚低泣拍向对對与與和把被将將在从從进進走出起拉携攜指摇搖怔呆来來去上了着著正早已一曰云谓謂言应應叱喝谢謝拜密责責")


_SURNAMES = ("赵趙钱錢孙孫李周吴吳郑鄭王冯馮陈陳褚卫衛蒋蔣沈韩韓杨楊朱秦尤许許何吕呂施张張孔曹严嚴华華金魏陶姜谢謝邹鄒"
               "喻柏水窦竇章云雲苏蘇潘葛范彭郎鲁魯韦韋昌马馬苗凤鳳花方俞任袁柳鲍鮑史唐费費薛雷贺賀倪汤湯滕殷罗羅毕畢郝"
               "安常乐樂于傅齐齊康伍余元顾顧孟黄黃穆萧蕭尹姚邵汪祁毛狄米贝貝明臧计計成戴宋庞龐熊纪紀舒屈项項祝董梁杜"
               "阮蓝藍闵閔贾賈江郭林钟鍾徐邱骆駱高夏蔡田胡凌霍虞万萬柯卢盧莫房解应應宗丁宣邓鄧单單杭洪包左石崔吉龚龔"
               "程邢裴陆陸荣榮翁荀甄曲封储儲靳焦牧山谷车車侯全班仰秋仲伊宫宮宁寧仇甘厉厲戎刘劉叶葉黎白蒲邰从從鄂索赖賴"
               "卓蔺藺屠蒙池乔喬郁胥党翟谭譚姬申冉雍桑桂牛寿壽边邊燕冀浦尚温溫庄莊晏柴瞿阎閻慕连連茹习習艾鱼魚容向古易"
               "廖庾终終步都耿满滿弘匡国國文寇广廣东東欧歐沃利蔚越隆师師巩鞏聂聶晁关關相查荆荊红紅游竺权權盖蓋益桓公冷"
               "武段岳詹闫覃佟鞠")  # common modern surnames the old list lacks
SURNAME = set(_SURNAMES)
_FEMALE = re.compile(r"(?:夫人|太太|奶奶|姑娘|小姐|姐|妹|嫂|姨|妈|媽|娘|婆|嬷|嬤|姥|母|婶|嬸|妃|后|氏|妻|女|丫头|丫頭|丫鬟|家的)(?:儿|兒)?$")
_MALE = re.compile(r"(?:老爷|老爺|爷|爺|公|兄|哥|弟|叔|伯|父|子|郎|生|相公|先生|大人|王|帝|将军|將軍|僧|道人|和尚)$")

# offices and forms of address a modern novel writes after a surname (`曹书记`, `徐主任`, `贾老师`)
OFFICES = frozenset("书记 主任 局长 县长 乡长 镇长 校长 队长 厂长 部长 经理 老师 大夫 医生 师傅 站长 所长 社长 主席 支书 会计 "
                    "秘书 同志".split())


def title_or_kin(word: str) -> bool:
    """Whether a word ends like a title or a kinship term (`夫人`, `姨妈`, `老爷`), not a given name."""
    return bool(_FEMALE.search(word) or _MALE.search(word))


@lru_cache(maxsize=1)
def _pseg():
    """jieba's part-of-speech tagger, loaded once and quiet."""
    import jieba
    import jieba.posseg as pseg

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return pseg


def pos_tags(s: str) -> list[tuple[str, str]]:
    return list(_pos_tags(s))


@lru_cache(maxsize=65536)
def _pos_tags(s: str) -> tuple[tuple[str, str], ...]:
    """jieba's words and part-of-speech flags of a short string (subjects repeat: cached)."""
    return tuple((w, f) for w, f in _pseg().lcut(s))


def is_word(s: str) -> bool:
    """Whether jieba's dictionary holds s as a word (`飞身`, `策马`, `卓然`; not `操大`)."""
    import jieba

    _pseg()
    return bool(jieba.get_FREQ(s))


_NAME_FINAL = set("云雲正进進方才复復连連和应應")


def plain_surname(ch: str) -> bool:
    """Whether a surname character reads as one on its own, not as a preposition, conjunction, adverb, verb or
    particle (`向宝玉`, `于帝`, `谢肃`: to, to, thanked)."""
    return ch in SURNAME and _pseg().lcut(ch, HMM=False)[0].flag not in ("p", "c", "d", "v", "u")
