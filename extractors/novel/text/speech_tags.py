"""English speech tags: the speech verbs and the patterns of a tag next to a quotation.

`VERBS_EN` is the one list of speech verbs (quote joining in `text/quotes.py`, cast discovery in
`cast/en/discover.py` and the tag rules in `attribution/explicit_tags.py` all use it); the compiled patterns match
`said Alice` / `Alice said` / `said she` / `her mother cried` around a quote.
"""

from __future__ import annotations

import re

from extractors.text import EN_CLAUSE_END, EN_CLAUSE_END_MARKS

VERBS_EN = (
    "said|says|say|saying|replied|replies|reply|cried|cries|answered|answers|returned|observed|added|continued|"
    "exclaimed|asked|asks|inquired|enquired|remarked|thought|thinks|began|begun|repeated|whispered|shouted|called|"
    "screamed|muttered|murmured|interrupted|rejoined|resumed|pursued|protested|declared|insisted|urged|"
    "pleaded|sobbed|sighed|laughed|growled|roared|yelled|persisted|explained|retorted|spoke|went\\s+on|"
    "recollected|suggested|ventured|stammered|faltered|moaned|shrieked|sneered|grumbled|panted|gasped|argued|"
    "agreed|concluded|demanded|hinted|promised|reasoned|reflected|reminded|sang|snapped|squeaked|warned|"
    "wondered|yawned|joined\\s+in|put\\s+in|struck\\s+in|broke\\s+in|broke\\s+out|burst\\s+out|called\\s+out|"
    "cried\\s+out|said\\s+aloud|read\\s+out|read|bawled|chuckled|giggled|groaned|howled|hissed|lisped|"
    "mused|nodded|ordered|prompted|quoth|responded|retorted|scolded|shouted|smiled|stormed|told|urged|"
    "wailed|went\\s+on\\s+saying|whimpered|wept|cautioned|commanded|confessed|corrected|interposed|"
    "exclaiming|crying|replying|answering|returning|adding|continuing|observing|thinking|muttering|"
    "whispering|repeating|calling|shouting|screaming|remarking|asking|inquiring|enquiring|said\\s+to\\s+(?:him|her|it)self|"
    "announced|echoed|admitted|ejaculated|remonstrated|expostulated|assented|acquiesced|queried|questioned|mumbled|"
    "conceded|thundered|implored|entreated|besought|hazarded|quavered|confided|blurted(?:\\s+out)?|stated|commented|"
    "objected|interjected|volunteered|drawled|snorted|whined|bellowed|stuttered|spluttered|sputtered|vociferated|"
    "chimed\\s+in|cut\\s+in|snarled|grunted|scoffed|jeered|mocked|teased|countered|acknowledged|affirmed"
)
_V = r"(?:" + VERBS_EN + r")\b"
_ADV = r"(?:\s+(?:[\w-]+ly|again|then|now|at\s+last|at\s+length|at\s+once|aloud|out|only|still|too|also|quickly|soon|instantly))*"
_LEAD = r"[\s,;:.!?\-—–)(_*]*"
PRON_GENDER = {"he": "male", "him": "male", "she": "female", "her": "female", "it": None, "i": None, "they": None}
NOUN_GENDER = {
    **{w: "female" for w in ("lady", "mother", "wife", "sister", "aunt", "daughter", "girl", "woman", "niece",
                             "cousin's wife", "ladyship", "mistress", "housekeeper", "queen", "duchess")},
    **{w: "male" for w in ("father", "husband", "brother", "uncle", "son", "boy", "man", "gentleman", "nephew",
                           "lordship", "master", "friend's father", "king", "duke", "fellow")},
    **{w: None for w in ("child", "servant")},  # `said the child`: Anne, but Randolph and Oliver too
}

_AFTER_VERB = re.compile(_LEAD + r"(?:and\s+)?" + _V + _ADV + r"\s+(?:(?:poor|little|old|young|dear)\s+)?")
_PRON_AFTER_VERB = re.compile(r"(he|she|it|I)\b", re.I)
_NP_AFTER_VERB = re.compile(r"(?:his|her|the|their|its|my|our)\s+(?:[a-z\-]+\s+){0,2}?([a-z\-]+)\b")
_PRON_BEFORE_VERB = re.compile(_LEAD + r"(he|she|it|I)" + _ADV + r"\s+(?:had\s+|was\s+)?" + _V, re.I)
_NP_BEFORE_VERB = re.compile(_LEAD + r"(?:his|her|the|their|its)\s+(?:[a-z\-]+\s+){0,2}?([a-z\-]+)" + _ADV + r"\s+" + _V)
_VERB_ONLY = re.compile(r"\s*(?:,\s*[^,\"]{0,60},\s*)?" + r"(?:[\w-]+ly\s+|then\s+|at\s+last\s+|at\s+length\s+|at\s+once\s+|again\s+|now\s+|only\s+|had\s+|was\s+|still\s+|soon\s+|"
                        r"no\s+sooner\s+|scarcely\s+|hardly\s+|just\s+|"
                        r"would\s+|could\s+|did\s+|once\s+|presently\s+)*"
                        r"(?:" + VERBS_EN + r"|wanted\s+to\s+know|broke\s+off|heard\s+(?:him|her)self\s+\w+ing)\b")
# `young Thorley hazarded`, `said the unsympathetic Marilla`: words before a name that do not change who it is
NAME_PREFIX = re.compile(r"(?:young|old|little|poor|dear|good|big)\s+")
ADJ_THE = re.compile(r"the\s+(?:(?!(?:to|at|with|for|of|and|in|on|by|from|upon|into|towards?)\s)[a-z][a-z\-]*\s+){1,2}(?=[A-Z])")
# `said wise Lucy`, `stammered unhappy Matthew`: one lower-case adjective, no article, before a name
ADJ_BARE = re.compile(r"(?!(?:to|at|with|for|of|and|in|on|by|from|upon|into|towards?|as|but|that|when|while|if|or|so|"
                      r"then|than|his|her|their|its|my|our|your|he|she|it|they|we|you|i)\s)[a-z][a-z\-]+\s+(?=[A-Z])")
# `"…," was Marilla's comment.` / `"…," was the firm reply of Mr. Limbkins.`
REPLY_NOUN = (r"(?:comment|reply|answer|remark|retort|response|rejoinder|greeting|exclamation|question|words|verdict|"
              r"cry|protest|observation|ejaculation|explanation|objection|rejoinder|salutation|advice|opinion|view|contribution)")
WAS_REPLY = re.compile(r"[\s,;:.!?\-—–]*(?:was|were|came)\s+")
# `"…," Archer heard Lawrence Lefferts say`: the one heard speaks
HEARD = re.compile(r"\s+(?:\w+ly\s+)?heard\s+")
HEARD_VERB = re.compile(r"\s+(?:\w+ly\s+)?(?:say|ask|cry|exclaim|call|shout|scream|murmur|whisper|mutter|reply|answer|add|remark|observe|declare|"
                        r"begin|continue|shout|repeat|protest)\b")
_SENT_END = re.compile(EN_CLAUSE_END + r"\s|[" + EN_CLAUSE_END_MARKS + r"]$|—\s*$")
# a person named by a noun right before a speech verb in the narration before a quote (`his mother added:`,
# `the young man, smiling at his betrothed, replied:`): the subject, so no earlier name is
PERSON_NOUNS = sorted({*NOUN_GENDER, "mamma", "papa", "parent", "mother-in-law", "father-in-law", "sister-in-law",
                       "brother-in-law", "son-in-law", "daughter-in-law", "hostess", "host", "guest", "visitor",
                       "stranger", "ancestress", "youth", "lad", "maid", "companion", "cousin", "grandmother",
                       "grandfather", "old lady", "old man", "young lady", "young man", "little girl", "little boy"},
                      key=len, reverse=True)
# `looked at his father for permission, who said`: the person the relative clause is about, not the sentence's subject
NP_WHO = re.compile(r"\b(?:the|his|her|their|my|our)\s+(?:[a-z\-]+\s+){0,2}?(" + "|".join(re.escape(n) for n in PERSON_NOUNS)
                    + r")\b[^,;:.!?\"“”]{0,30},\s*who\s+(?:(?:\w+ly|then|now|again|had|at\s+last|at\s+once)\s+)*$")
NP_SUBJECT = re.compile(r"\b(?:the|his|her|their|my|our)\s+(?:[a-z\-]+\s+){0,2}?(" + "|".join(re.escape(n) for n in PERSON_NOUNS)
                        + r")\s*(?:,[^,\"]{0,80},\s*)?(?:(?:\w+ly|then|now|again|at\s+last|at\s+once)\s+)*$")

