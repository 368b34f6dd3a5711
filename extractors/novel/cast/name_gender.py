"""A first name's gender from gender-guesser's offline name dictionary, for a discovered person the text gives no
gender (no title, no he/she near their tags): `Gladys`, `Cecil`, `Henry`. Only where the British and the American
entries both say plainly male or female (`Brett`, `Jean`, `Robin`: none)."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def _detector():
    import gender_guesser.detector as gg

    return gg.Detector(case_sensitive=False)


@lru_cache(maxsize=4096)
def first_name_gender(name: str) -> str | None:
    """`male`, `female`, or None when the dictionary is unsure or does not know the name."""
    if not name.isalpha():
        return None
    d = _detector()
    got = {d.get_gender(name, country) for country in ("great_britain", "usa")}
    return got.pop() if len(got) == 1 and got <= {"male", "female"} else None
