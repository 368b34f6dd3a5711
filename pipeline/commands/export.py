"""`rolecorpus export chatharuhi ID`: a character package as a role file the ChatHaruhi runtime loads."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..cli_app import app, one_line_errors
from ..embedders import CachedEmbedder, VectorCache
from ..export import CHATHARUHI_EMBEDDINGS, chatharuhi_embedder, chatharuhi_embedding, write_chatharuhi
from ..paths import Project
from ..rolefile import read_role_file

export_app = typer.Typer(help="Write a character package in the format another runtime loads.", no_args_is_help=True)
app.add_typer(export_app, name="export")


@export_app.command("chatharuhi")
@one_line_errors
def chatharuhi(
    cid: str = typer.Argument(..., metavar="ID", help="Character id (its package data/characters/ID/ must exist)."),
    embedding: str = typer.Option("luotuo_openai", "--embedding",
                                  help=f"ChatHaruhi's embedding= choice: {', '.join(CHATHARUHI_EMBEDDINGS)}."),
    output: Optional[Path] = typer.Option(None, "-o", "--output",
                                          help="Role file to write (default data/exports/chatharuhi/ID.EMBEDDING.jsonl)."),
    weights: Optional[Path] = typer.Option(None, "--weights",
                                           help="bge_en/bge_zh: folder with the BGE weights (default: the Hugging Face cache)."),
    model: Optional[str] = typer.Option(None, "--model",
                                        help="luotuo_openai: endpoint model (default text-embedding-ada-002, the space ChatHaruhi queries in)."),
) -> None:
    """Write a role file the ChatHaruhi runtime loads with its own embedding= choice.

    The stories are re-embedded with the model ChatHaruhi uses for --embedding; load the file with
    ChatHaruhi(role_from_jsonl=FILE, embedding=EMBEDDING)."""
    project = Project.current()
    target = chatharuhi_embedding(embedding)
    role_file = project.package(cid) / f"{cid}.jsonl"
    read_role_file(role_file)  # a missing or malformed package stops here, before any model is loaded
    out = output or project.root / "data" / "exports" / "chatharuhi" / f"{cid}.{target.name}.jsonl"
    cache = VectorCache(project.cache / "vectors.sqlite")
    try:
        emb = CachedEmbedder(chatharuhi_embedder(target, weights, model), cache)
        n, dim = write_chatharuhi(role_file, out, target, emb, model)
    finally:
        cache.close()
    typer.echo(f"{cid}: {n} stories embedded for ChatHaruhi {target.name!r} ({model or target.model}, {dim}-d, "
               f"column {target.column!r}) -> {out}")
    typer.echo(f"load it with: ChatHaruhi(role_from_jsonl={str(out)!r}, embedding={target.name!r})")
