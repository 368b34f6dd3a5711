"""The `csrftoken` field of a multipart form, read as the body streams in, so a plain HTML upload form (no script,
no `x-csrftoken` header) passes the studio's CSRF check. asgi-csrf's own multipart reader needs an older
python-multipart API; this one uses the parser Starlette uses. Only the body up to the token is held in memory
(the token must come before any file, as the studio's forms put it), and it is replayed to the app unchanged."""

from __future__ import annotations

FIELD = b"csrftoken"
MAX_BEFORE_TOKEN = 1 << 20  # bytes read looking for the token before giving up (the token is the form's first field)


class MalformedForm(ValueError):
    """A multipart body that cannot be parsed (no boundary, broken framing)."""


async def multipart_token(content_type: str, receive):
    """(the form's csrftoken or None, a receive that replays the body). None when a file part comes first or
    the token is not in the first MAX_BEFORE_TOKEN bytes."""
    from python_multipart.exceptions import MultipartParseError
    from python_multipart.multipart import MultipartParser, parse_options_header

    _, params = parse_options_header(content_type)
    boundary = params.get(b"boundary")
    if not boundary:
        raise MalformedForm("a multipart form without a boundary")
    part = {"field": b"", "value": b"", "headers": {}, "name": None, "data": bytearray()}
    found: dict = {}

    def on_part_begin():
        part.update(headers={}, name=None, data=bytearray())

    def on_header_field(data, start, end):
        part["field"] += data[start:end]

    def on_header_value(data, start, end):
        part["value"] += data[start:end]

    def on_header_end():
        part["headers"][part["field"].lower()] = part["value"]
        part.update(field=b"", value=b"")

    def on_headers_finished():
        _, options = parse_options_header(part["headers"].get(b"content-disposition", b""))
        part["name"] = options.get(b"name")
        if b"filename" in options and "token" not in found:
            found["stop"] = True  # a file before the token: the upload is not read into memory to look further

    def on_part_data(data, start, end):
        if part["name"] == FIELD and not found:
            part["data"] += data[start:end]

    def on_part_end():
        if part["name"] == FIELD and not found:
            found["token"] = part["data"].decode("utf-8", "replace")

    parser = MultipartParser(boundary, {
        "on_part_begin": on_part_begin, "on_header_field": on_header_field, "on_header_value": on_header_value,
        "on_header_end": on_header_end, "on_headers_finished": on_headers_finished, "on_part_data": on_part_data,
        "on_part_end": on_part_end})
    messages, size, more = [], 0, True
    while more and not found and size <= MAX_BEFORE_TOKEN:
        message = await receive()
        if message["type"] != "http.request":  # the client went away
            messages.append(message)
            break
        messages.append(message)
        body = message.get("body", b"")
        size += len(body)
        more = message.get("more_body", False)
        try:
            parser.write(body)
        except MultipartParseError as e:
            raise MalformedForm(str(e)) from None

    async def replay():
        return messages.pop(0) if messages else await receive()

    return found.get("token"), replay
