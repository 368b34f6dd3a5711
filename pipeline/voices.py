"""Voices of episodes (orchestration): train a voice model from labelled lines, discover the voices of a season,
name discovered voices. `rolecorpus speakers train|discover|name`, the batch job's seasons and the studio call
these; the work itself is extractors.tv's (ECAPA-TDNN embeddings, clustering, the voice model)."""

from __future__ import annotations

import glob
import sys
from pathlib import Path

from extractors.errors import InputError
from extractors.ids import check_id

from .paths import Project
from .settings import load_settings, validate_model


def speaker_settings(project: Project) -> dict:
    """The speakers: section, every key given (unknown keys and wrong types were refused when it was read)."""
    from extractors.tv import DEFAULTS

    st = load_settings(project.pipeline_yaml).speakers.model_dump(exclude_unset=True)
    return {**DEFAULTS, **st}


def out_name(out: Path, what: str = "-o/--out") -> Path:
    """An output folder whose own name is a valid id (it becomes a file name others refer to)."""
    check_id(Path(out).resolve().name, f"{what} folder name", out)
    return out


def resolver(project: Project):
    from extractors.characters import AliasResolver, load_characters

    return AliasResolver(load_characters(project.configs))


def encoder(project: Project, threads: int):
    from .models import PipelineModels

    return PipelineModels(project.cache).speaker_encoder(threads)


def progress_bar(total: int, desc: str):
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="line", file=sys.stderr, disable=None)


def load_labelled_audio(labels_path: Path, labels: list) -> dict:
    """Decode every media file the labels use (errors name the labels row) and check time ranges."""
    from extractors.tv import SAMPLE_RATE, check_ranges, decode_audio

    audio: dict[Path, object] = {}
    for lab in labels:
        if lab.media in audio:
            continue
        try:
            audio[lab.media] = decode_audio(lab.media)
        except InputError as e:
            raise InputError(f"media {lab.media}: {e}", labels_path, lab.row) from None
    check_ranges(labels, lambda m: len(audio[m]) / SAMPLE_RATE, labels_path)
    return audio


def train_voices(project: Project, labels: Path, out: Path, media: Path | None = None, threads: int = 0):
    """Embed each labelled line and store per-character voice profiles in `out`; the model and the settings used."""
    from extractors.tv import read_labels, train_from_labels

    out_name(out)
    st = speaker_settings(project)
    labs = read_labels(labels, resolver(project), media)
    for lab in labs:
        check_id(lab.character, "character id", labels)
    audio = load_labelled_audio(labels, labs)
    enc = encoder(project, threads or int(st.get("threads") or 0))
    with progress_bar(len(labs), "embedding labelled lines") as bar:
        model = train_from_labels(labs, lambda m: audio[m], enc, st, progress=bar.update)
    model.save(out)
    return model, st


def episodes(patterns: list[str]) -> list[Path]:
    """Media files from paths or quoted globs, in name order; a pattern matching nothing is an error."""
    out: list[Path] = []
    for pat in patterns:
        hits = sorted(glob.glob(pat)) or ([pat] if Path(pat).is_file() else [])
        if not hits:
            raise InputError("no media file matches", pat)
        out += [Path(h) for h in hits if Path(h) not in out]
    return out


def subtitles_beside(media: Path) -> Path:
    from extractors.tv import FORMATS

    for ext in FORMATS:
        if media.with_suffix(ext).is_file():
            return media.with_suffix(ext)
    raise InputError(f"no subtitle file beside the episode ({', '.join(FORMATS)}); drop --subtitles-beside "
                     "to transcribe it", media)


def discover_season(project: Project, files: list[Path], out: Path, *, beside: bool = False, work: str = "discover",
                    language: str | None = None, threads: int = 0, asr_backend: str = "faster-whisper") -> dict:
    """`speakers discover`: the voices of `files` (subtitles beside each when `beside`, else Whisper) into `out`."""
    from extractors.tv import TvOptions

    th = threads or int(speaker_settings(project).get("threads") or 0)
    episodes = [(f, validate_model(TvOptions, {"subtitles": subtitles_beside(f) if beside else None,
                                               "language": language, "threads": th, "asr_backend": asr_backend},
                                   None, None)) for f in files]
    return discover_episodes(project, episodes, out, work)


def discover_episodes(project: Project, episodes: list[tuple[Path, object]], out: Path, work: str,
                      progress=None) -> dict:
    """Embed every line of every episode (each read with its TvOptions) and cluster the voices into `out`
    (lines.jsonl, voices.json, embeddings.npz, clips/); voices.json as a dict, with `rows` (lines embedded) and
    `episodes`. `progress(**fields)`, when given, is told each step (the studio's status) instead of a bar."""
    from extractors.tv import decode_audio, discover_voices, extract_tv, write_discovery

    from .models import PipelineModels

    check_id(work, "--work")
    out_name(out)
    st = speaker_settings(project)
    models = PipelineModels(project.cache)
    res = resolver(project)
    found, audio = [], {}
    for n, (f, opts) in enumerate(episodes):
        if progress:
            progress(step="lines", item=f.name, done=n, total=len(episodes), message=f"reading the lines of {f.name}")
        lines = extract_tv(f, work, opts, resolver=res, cache_dir=project.cache, progress=False,
                           whisper=lambda o=opts: models.whisper(o.asr_backend, o.model, o.threads))
        audio[f.resolve()] = decode_audio(f)
        found.append((f.resolve(), lines))
    total = sum(len(ls) for _, ls in found)
    enc = models.speaker_encoder(episodes[0][1].threads if episodes else 0)
    if progress:
        progress(step="embed", item=None, done=0, total=total, message=f"embedding the voices of {total} lines")
        done = [0]

        def step(k: int = 1) -> None:
            done[0] += k
            progress(done=done[0])

        lines, E, rows, clusters = discover_voices(found, audio.__getitem__, enc, st, progress=step)
    else:
        with progress_bar(total, "embedding lines") as bar:
            lines, E, rows, clusters = discover_voices(found, audio.__getitem__, enc, st, progress=bar.update)
    meta = write_discovery(out, lines, E, rows, clusters, audio.__getitem__, enc.model_id)
    return {**meta, "rows": len(rows), "episodes": len(episodes)}


def name_voices(project: Project, voices: Path, pairs: list[tuple[str, str]] | None = None, names: Path | None = None,
                out: Path | None = None):
    """Give discovered clusters to characters (`pairs` of cluster and character id or alias, or a `cluster,character`
    CSV) and train the voice model from every named cluster: (lines named, model, model folder, the pairs)."""
    from extractors.tv import name_clusters, read_names

    res = resolver(project)
    if names is not None:
        pairs = read_names(names, res.resolve)
    else:
        checked = []
        for cluster, character in pairs or []:
            check_id(cluster, "cluster id")
            cid = res.resolve(character)
            if cid is None:
                raise InputError(f"unknown character {character!r} (add it with `rolecorpus add-character`)",
                                 project.configs)
            checked.append((cluster, check_id(cid, "character id")))
        pairs = checked
    model_dir = out_name(out or voices / "model")
    n, model = name_clusters(voices, pairs, model_dir, speaker_settings(project))
    return n, model, model_dir, pairs
