"""rolecorpus studio: a local web application over the project's files (`rolecorpus studio`).

Pages (server-rendered, Starlette + Jinja2; the only script and stylesheet are vendored in `static/`):
characters (list, add one), a character's corpus report with charts, the review queue of doubtful lines (writes
`review/<work>.jsonl`, see pipeline/review.py), story search, and chat through the same runtime as `rolecorpus chat`.
"""
