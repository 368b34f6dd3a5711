"""Make SubRip subtitles from a NIST STM transcript (the TV sample's subtitles).

    python scripts/stm_to_srt.py data/samples/sample.stm data/samples/sample.srt
    python scripts/stm_to_srt.py data/samples/sample.stm data/samples/sample_named.srt --names

STM rows are `<file> <channel> <speaker> <start> <end> <words>`. Without `--names` the subtitles carry
only the words (speaker identification by voice labels them); with `--names` each cue starts with
`Speaker: ` (subtitle import labels it, evidence `subtitle`).
"""

from __future__ import annotations

import argparse
from pathlib import Path


def stamp(t: float) -> str:
    ms = round(t * 1000)
    h, ms = divmod(ms, 3_600_000)
    m, ms = divmod(ms, 60_000)
    s, ms = divmod(ms, 1000)
    return f"{h:02d}:{m:02d}:{s:02d},{ms:03d}"


def stm_to_srt(stm: str, names: bool) -> str:
    cues = []
    for raw in stm.splitlines():
        if not raw.strip() or raw.startswith(";;"):
            continue
        _file, _chan, speaker, start, end, words = raw.split(None, 5)
        text = f"{speaker}: {words}" if names else words
        cues.append(f"{len(cues) + 1}\n{stamp(float(start))} --> {stamp(float(end))}\n{text}\n")
    return "\n".join(cues)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("stm", type=Path)
    ap.add_argument("srt", type=Path)
    ap.add_argument("--names", action="store_true", help="prefix every cue with its speaker's name")
    a = ap.parse_args()
    a.srt.write_text(stm_to_srt(a.stm.read_text(encoding="utf-8"), a.names), encoding="utf-8")


if __name__ == "__main__":
    main()
