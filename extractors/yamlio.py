"""Read a YAML config (pipeline.yaml, a character file) without trusting it.

`load_yaml` refuses, as one InputError naming the file: a file that is not a regular file or is over 1 MB
(configs are a few KB); bytes that are not UTF-8 (a UTF-8 BOM and CRLF line ends are fine); invalid YAML;
a key given twice in one mapping (PyYAML silently keeps the last one: `name: A` then `name: B`); an alias
that refers to itself; anchors and aliases that expand to more than 100,000 values (the "billion laughs":
nine lines of YAML that turn into 10^9 strings once anything walks them, as validation and error messages do);
nesting deeper than the parser's recursion allows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .errors import InputError
from .textio import read_source_bytes

MAX_CONFIG_BYTES = 1_000_000
MAX_VALUES = 100_000


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key repeated in one mapping."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen = set()
            for key_node, _ in node.value:
                if isinstance(key_node, yaml.ScalarNode) and key_node.tag != "tag:yaml.org,2002:merge":
                    if key_node.value in seen:
                        raise yaml.constructor.ConstructorError(
                            None, None, f"key {key_node.value!r} is given twice", key_node.start_mark)
                    seen.add(key_node.value)
        return super().construct_mapping(node, deep)


def _expanded_size(node: yaml.Node, memo: dict[int, int], active: set[int], path: Path) -> int:
    """How many values `node` holds once every alias is expanded (computed without expanding)."""
    key = id(node)
    if key in memo:
        return memo[key]
    if key in active:
        raise InputError("a YAML alias refers to itself (a structure that contains itself)", path)
    active.add(key)
    if isinstance(node, yaml.SequenceNode):
        size = 1 + sum(_expanded_size(c, memo, active, path) for c in node.value)
    elif isinstance(node, yaml.MappingNode):
        size = 1 + sum(_expanded_size(k, memo, active, path) + _expanded_size(v, memo, active, path)
                       for k, v in node.value)
    else:
        size = 1
    active.discard(key)
    memo[key] = size
    if size > MAX_VALUES:
        raise InputError(f"anchors and aliases expand to more than {MAX_VALUES:,} values; a config is far "
                         "smaller (an alias bomb?)", path)
    return size


def load_yaml(path: str | Path) -> Any:
    """The data of a YAML config, or InputError naming the file (see the module docstring)."""
    path = Path(path)
    data = read_source_bytes(path, MAX_CONFIG_BYTES, "than a config holds")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("not valid YAML (UnicodeDecodeError; configs are UTF-8)", path) from None
    loader = _StrictLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _expanded_size(node, {}, set(), path)
        return loader.construct_document(node)
    except yaml.YAMLError as e:
        what = f": {e.problem}" if isinstance(e, yaml.constructor.ConstructorError) and "twice" in str(e.problem) else ""
        line = f" at line {e.problem_mark.line + 1}" if getattr(e, "problem_mark", None) is not None else ""
        raise InputError(f"not valid YAML ({e.__class__.__name__}{what}{line})", path) from None
    except RecursionError:
        raise InputError("not valid YAML (nested too deeply)", path) from None
    finally:
        loader.dispose()
