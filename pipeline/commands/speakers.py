"""`rolecorpus speakers train|review|apply|eval|discover|name`: speaker identification by voice (ECAPA-TDNN).

`discover` clusters the voices of a season before anyone is named; `name` gives a cluster to a character and
trains the voice profile from every named cluster (extractors/tv/discover.py).

Every id the commands take or write under (character ids, cluster ids, `--work`, the name of an output folder)
goes through extractors/ids.py `check_id`, as in the other commands.

Thresholds and segment settings come from the `speakers:` section of configs/pipeline.yaml
(pipeline.settings.SpeakerSettings; its defaults are extractors.tv.speaker_id.DEFAULTS).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Optional

import typer

from extractors.errors import InputError

from ..cli_app import speakers_app
from ..paths import Project
from .. import voices
from ..settings import load_settings


def _settings() -> dict:
    return voices.speaker_settings(Project.current())


def _resolver():
    return voices.resolver(Project.current())


def _encoder(threads: int):
    return voices.encoder(Project.current(), threads)


@speakers_app.command("train")
def train(
    labels: Path = typer.Argument(..., help="Labels CSV: character,text,start,end,media (media relative to the CSV), "
                                            "or ChatHaruhi's 人物,人物台词,开始时间,结束时间 with --media."),
    out: Path = typer.Option(..., "-o", "--out", help="Model directory to write (model.npz + model.json)."),
    media: Optional[Path] = typer.Option(None, "--media", help="Media file for rows without a media column/cell."),
    threads: int = typer.Option(0, "--threads", help="Torch threads (0 = the speakers.threads setting, else all cores)."),
) -> None:
    """Embed each labelled line with ECAPA-TDNN and store per-character voice profiles."""
    model, st = voices.train_voices(Project.current(), labels, out, media, threads)
    counts = ", ".join(f"{c} {n}" for c, n in model.counts.items())
    skipped = model.calibration.get("skipped_too_short", 0)
    th = model.thresholds
    typer.echo(f"wrote {out}: {len(model.characters)} characters ({counts}); "
               f"accept {th['accept']:.3f}, maybe {th['maybe']:.3f}"
               + (f"; {skipped} line(s) shorter than {st['min_duration']} s skipped" if skipped else ""))


@speakers_app.command("review")
def review(
    lines: Path = typer.Argument(..., help="lines.jsonl produced by `rolecorpus extract tv --speakers`."),
    out: Path = typer.Option(..., "-o", "--out", help="Review sheet (CSV) to write."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Only the N least confident lines."),
    include_manual: bool = typer.Option(False, "--include-manual", help="Also list lines already fixed by hand."),
) -> None:
    """List lines by rising confidence with times and best guesses; fix the `character` column."""
    from extractors.records import read_lines
    from extractors.tv import write_review

    n = write_review(read_lines(lines), out, limit=limit, include_manual=include_manual)
    typer.echo(f"wrote {out}: {n} lines, least confident first; fill in the character column "
               "('-' = nobody we know), then run `rolecorpus speakers apply`")


@speakers_app.command("apply")
def apply(
    review_csv: Path = typer.Argument(..., metavar="REVIEW.csv", help="Review sheet with the character column filled in."),
    lines: Path = typer.Argument(..., help="lines.jsonl to correct in place (atomically)."),
    labels: Optional[Path] = typer.Option(None, "--labels", help="Also append the reviewed lines to this labels CSV "
                                                                 "(for retraining)."),
    media: Optional[Path] = typer.Option(None, "--media", help="Media file of the lines, when their `source` is not a "
                                                               "path to it."),
) -> None:
    """Write the person's corrections back (evidence manual, confidence 1.0)."""
    from extractors.tv import append_labels
    from extractors.tv import apply_review

    def media_of(source: str) -> Path | None:
        for cand in (Path(source), lines.parent / source, Project.current().root / source):
            if cand.is_file():
                return cand.resolve()
        return media.resolve() if media is not None else None

    if media is not None and not media.is_file():
        raise InputError("no such media file", media)
    if labels is not None:  # validate the labels file before anything is written
        from extractors.tv import read_labels

        if labels.exists():
            read_labels(labels, _resolver())
    from extractors.records import read_lines

    from ..review import record_sheet

    original = read_lines(lines)
    changed, new_labels = apply_review(review_csv, lines, _resolver(), media_of if labels is not None else None)
    settings = load_settings(Project.current().pipeline_yaml)  # the answers also go to the work's review file
    saved = record_sheet(Project.current().root, settings.sources, settings.works, review_csv, original, _resolver())
    msg = f"{lines}: {changed} line(s) corrected" + "".join(f"; decisions saved in {p}" for p in saved)
    if labels is not None:
        if new_labels:
            append_labels(labels, new_labels)
        msg += f"; {len(new_labels)} label(s) appended to {labels}"
    typer.echo(msg)


@speakers_app.command("eval")
def evaluate(
    model_dir: Path = typer.Argument(..., help="Model directory from `rolecorpus speakers train`."),
    labelled: Path = typer.Argument(..., help="Labels CSV with the true speakers (not the training lines)."),
    png: Optional[Path] = typer.Option(None, "--png", help="Save the confusion matrix as a PNG."),
    media: Optional[Path] = typer.Option(None, "--media", help="Media file for rows without a media column/cell."),
    threads: int = typer.Option(0, "--threads", help="Torch threads (0 = the speakers.threads setting, else all cores)."),
) -> None:
    """Measure a voice model on labelled lines: accuracy, coverage, false accepts, confusion matrix.

    False accepts are lines of voices nobody enrolled (labelled characters the model does not know) given to a
    character. A 'maybe' verdict's guess counts as given; the `confident` line gives the figures for the speakers
    `extract tv` writes (confident verdicts only)."""
    from extractors.tv import read_labels
    from extractors.tv import SpeakerModel, evaluate as run_eval

    st = _settings()
    model = SpeakerModel.load(model_dir)
    labs = read_labels(labelled, _resolver(), media)
    audio = voices.load_labelled_audio(labelled, labs)
    enc = _encoder(threads or int(st.get("threads") or 0))
    if enc.model_id != model.encoder_id:
        raise InputError(f"model was trained with encoder {model.encoder_id}, not {enc.model_id}; retrain it", model_dir)
    with voices.progress_bar(len(labs), "identifying") as bar:
        res = run_eval(model, labs, lambda m: audio[m], enc, progress=bar.update)
    typer.echo(f"lines      {res['n']}")
    typer.echo(f"accuracy   {res['accuracy']:.3f}   (correct / all labelled lines)")
    typer.echo(f"coverage   {res['coverage']:.3f}   (lines given a speaker)")
    typer.echo(f"precision  {res['precision']:.3f}   (correct / lines given a speaker)")
    if res["unenrolled"]:
        typer.echo(f"enrolled   {res['enrolled_accuracy']:.3f}   (correct / lines of enrolled voices)")
    typer.echo(f"false accepts {res['false_accepts']} of {res['unenrolled']} lines of voices nobody enrolled "
               "(given a speaker)")
    typer.echo(f"confident  {res['confident_accuracy']:.3f}   (correct / all, counting only confident verdicts: the "
               f"speakers `extract tv` writes; 'maybe' guesses go to review), false accepts "
               f"{res['confident_false_accepts']}")
    typer.echo(f"verdicts   confident {res['confident']}, maybe {res['maybe']}, unknown {res['unknown']}, "
               f"too-short {res['too_short']}")
    typer.echo(format_matrix(res["rows"], res["cols"], res["matrix"]))
    if png is not None:
        save_matrix_png(res["rows"], res["cols"], res["matrix"], png, res["accuracy"])
        typer.echo(f"wrote {png}")


def format_matrix(rows: list[str], cols: list[str], matrix) -> str:
    """Plain-text confusion matrix: rows = true character, columns = predicted."""
    head = "true \\ predicted"
    w = max(8, *(len(c) for c in rows + cols)) + 1
    w0 = max(w, len(head) + 1)
    out = [head.ljust(w0) + "".join(c.rjust(w) for c in cols)]
    for r, vals in zip(rows, matrix):
        out.append(r.ljust(w0) + "".join(str(int(v)).rjust(w) for v in vals))
    return "\n".join(out)


def save_matrix_png(rows: list[str], cols: list[str], matrix, path: Path, accuracy: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from extractors.atomic import atomic_write_bytes

    fig, ax = plt.subplots(figsize=(1.2 + 0.8 * len(cols), 1.0 + 0.7 * len(rows)), dpi=100)
    ax.imshow(matrix, cmap="Blues")
    ax.set_xticks(range(len(cols)), cols, rotation=45, ha="right")
    ax.set_yticks(range(len(rows)), rows)
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    ax.set_title(f"speaker identification (accuracy {accuracy:.2f})")
    vmax = matrix.max() if matrix.size else 0
    for i in range(len(rows)):
        for j in range(len(cols)):
            ax.text(j, i, int(matrix[i, j]), ha="center", va="center",
                    color="white" if vmax and matrix[i, j] > vmax / 2 else "black")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    atomic_write_bytes(path, buf.getvalue())


@speakers_app.command("discover")
def discover(
    media: list[str] = typer.Argument(..., help="Episodes: media files or quoted globs (\"S01/*.mkv\")."),
    out: Path = typer.Option(Path("data/voices"), "-o", "--out", help="Folder to write (lines.jsonl, voices.json, "
                                                                      "embeddings.npz, clips/)."),
    subtitles_beside: bool = typer.Option(False, "--subtitles-beside", help="Lines from the subtitle file beside "
                                          "each episode (same name, .srt/.ass/.ssa/.vtt); else Whisper transcribes."),
    work: str = typer.Option("discover", "--work", help="Work id written into the lines."),
    language: Optional[str] = typer.Option(None, "--language", help="Spoken language for Whisper; detected when "
                                                                    "omitted."),
    threads: int = typer.Option(0, "--threads", help="Torch threads (0 = the speakers.threads setting, else all cores)."),
    asr_backend: str = typer.Option("faster-whisper", "--asr-backend", help="Whisper backend when there are no "
                                    "subtitles: faster-whisper (the default) or openai-whisper."),
) -> None:
    """Embed every line of every episode (ECAPA-TDNN) and cluster the voices; sample clips and lines per voice."""
    files = voices.episodes(media)
    meta = voices.discover_season(Project.current(), files, out, beside=subtitles_beside, work=work,
                                  language=language, threads=threads, asr_backend=asr_backend)
    typer.echo(f"wrote {out}: {len(meta['voices'])} voices in {meta['rows']} lines of {meta['episodes']} episode(s)")
    for v in meta["voices"]:
        first = v["samples"][0]["text"] if v["samples"] else ""
        typer.echo(f"  {v['cluster']}  {v['lines']:4d} lines  {v['seconds']:7.1f} s  e.g. {first[:60]!r}")
    typer.echo(f"name one with: rolecorpus speakers name {meta['voices'][0]['cluster']} CHARACTER --voices {out}")


@speakers_app.command("name")
def name(
    cluster: Optional[str] = typer.Argument(None, help="A cluster from `speakers discover` (voice_03, or 3)."),
    character: Optional[str] = typer.Argument(None, help="The character id (or an alias) its voice belongs to."),
    voices_dir: Path = typer.Option(Path("data/voices"), "--voices", help="The folder `speakers discover` wrote."),
    out: Optional[Path] = typer.Option(None, "-o", "--out", help="Speaker model to (re)write; default VOICES/model."),
    names: Optional[Path] = typer.Option(None, "--names", help="Name several clusters at once from a CSV "
                                         "`cluster,character` (the naming kept as data: `dvc repro` replays it)."),
) -> None:
    """Label every line of a discovered voice and train the voice profile from all named voices."""
    if (names is None) == (cluster is None or character is None) or (names is not None and cluster is not None):
        raise InputError("give CLUSTER CHARACTER, or --names FILE (not both)")
    n, model, model_dir, pairs = voices.name_voices(Project.current(), voices_dir, [(cluster, character)]
                                                    if names is None else None, names, out)
    counts = ", ".join(f"{c} {k}" for c, k in model.counts.items())
    named = ", ".join(f"{c} = {ch}" for c, ch in pairs)
    typer.echo(f"{named}: {n} lines named; wrote {model_dir} ({counts})")
