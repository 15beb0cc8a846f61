"""Where a ``$ref`` points: local JSON pointers, ``$defs``/``definitions``, ``$anchor`` and ``$id``.

`SchemaIndex(root)` walks a schema document once and records every embedded resource (a
subschema with its own ``$id``, resolved against the enclosing base URI) and every plain-name
anchor (``$anchor``, ``$dynamicAnchor``, or a draft-6/7 ``$id`` of the form ``#name``). Then
`resolve(ref, base)` turns a reference into the subschema it names and that subschema's JSON
pointer in the document.

Invariant: a reference resolves to a node of *this* document, or raises `SchemaError` naming the
reference; a remote reference (another document) is refused, never fetched and never ignored.

>>> index = SchemaIndex({"$defs": {"pos": {"$anchor": "p", "minimum": 0}}})
>>> index.resolve("#/$defs/pos", index.root_base)[1], index.resolve("#p", index.root_base)[1]
('/$defs/pos', '/$defs/pos')

Reference: JSON Schema Core (draft 2020-12) §8.2 (base URI, anchors) and §8.2.3 ($ref);
RFC 3986 §5 (reference resolution); RFC 6901 (JSON Pointer).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urldefrag, urljoin

from ..errors import SchemaError

__all__ = ["DEFAULT_BASE", "SCHEMA_LIST_KEYWORDS", "SCHEMA_MAP_KEYWORDS", "SCHEMA_ONE_KEYWORDS", "SchemaIndex",
           "child_base", "pointer_append"]

#: The base URI of a document without a top-level ``$id``: a name no remote reference can match.
DEFAULT_BASE = "urn:brzozowski:schema"

#: Keywords whose value is one subschema, a list of subschemas, or a map of name -> subschema.
SCHEMA_ONE_KEYWORDS = ("additionalProperties", "additionalItems", "contains", "propertyNames", "not", "if", "then",
        "else", "unevaluatedItems", "unevaluatedProperties", "contentSchema", "items")
SCHEMA_LIST_KEYWORDS = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
SCHEMA_MAP_KEYWORDS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies")


def pointer_append(parent: str, token: str | int) -> str:
    """RFC 6901: append one reference token, escaping ``~`` as ``~0`` and ``/`` as ``~1``."""
    return parent + "/" + str(token).replace("~", "~0").replace("/", "~1")


def _join(base: str, ref: str) -> str:
    if base.startswith("urn:"):  # urljoin does not resolve against URNs
        if ref.startswith("#") or not ref:
            return urldefrag(base)[0] + ref
        return ref if ":" in ref.split("/")[0] else base.rsplit("/", 1)[0] + "/" + ref
    return urljoin(base, ref)


def child_base(base: str, node: Any) -> str:
    """The base URI inside `node` (its ``$id`` resolved against `base`, fragment dropped)."""
    if isinstance(node, dict) and isinstance(node.get("$id"), str) and not node["$id"].startswith("#"):
        return urldefrag(_join(base, node["$id"]))[0]
    return base


class SchemaIndex:
    """The resources and anchors of one schema document, for resolving ``$ref``."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.root_base = child_base(DEFAULT_BASE, root)
        self._resources: dict[str, tuple[Any, str]] = {self.root_base: (root, "")}
        self._anchors: dict[tuple[str, str], tuple[Any, str]] = {}
        self._pointers: dict[int, tuple[Any, str]] = {}  # an object's id -> (it, its JSON pointer)
        self._walk(root)
        self._point(root)

    def _walk(self, root: Any) -> None:
        """Record every resource and anchor, depth first in keyword order (the first one of a name
        wins), with an explicit stack: a document's depth never reaches Python's stack. A node met
        again (shared, or a document that contains itself) is not walked again."""
        stack: list[tuple[Any, str, str]] = [(root, "", self.root_base)]
        walked: set[int] = set()  # ids of nodes of `root`, which holds them alive meanwhile
        while stack:
            node, ptr, base = stack.pop()
            if not isinstance(node, dict) or id(node) in walked:
                continue
            walked.add(id(node))
            base = child_base(base, node)
            self._resources.setdefault(base, (node, ptr))
            for key in ("$anchor", "$dynamicAnchor"):
                if isinstance(node.get(key), str):
                    self._anchors.setdefault((base, node[key]), (node, ptr))
            if isinstance(node.get("$id"), str) and node["$id"].startswith("#"):  # draft-6/7 anchors
                self._anchors.setdefault((base, node["$id"][1:]), (node, ptr))
            children: list[tuple[Any, str, str]] = []
            for key in SCHEMA_ONE_KEYWORDS:
                if isinstance(node.get(key), dict):
                    children.append((node[key], pointer_append(ptr, key), base))
            for key in SCHEMA_LIST_KEYWORDS:
                if isinstance(node.get(key), list):
                    where = pointer_append(ptr, key)
                    children += [(sub, pointer_append(where, i), base) for i, sub in enumerate(node[key])]
            for key in SCHEMA_MAP_KEYWORDS:
                if isinstance(node.get(key), dict):
                    where = pointer_append(ptr, key)
                    children += [(sub, pointer_append(where, name), base) for name, sub in node[key].items()]
            stack.extend(reversed(children))

    def _point(self, root: Any) -> None:
        """Record the pointer of every object in the document (subschemas, and the objects a
        ``$ref`` may reach outside the keywords), depth first, without recursion; the first place
        of an object that appears twice wins."""
        stack: list[tuple[Any, str]] = [(root, "")]
        while stack:
            node, ptr = stack.pop()
            if isinstance(node, dict):
                if id(node) in self._pointers:
                    continue
                self._pointers[id(node)] = (node, ptr)
                stack.extend(reversed([(v, pointer_append(ptr, k)) for k, v in node.items()
                                       if isinstance(v, (dict, list))]))
            elif isinstance(node, list):
                stack.extend(reversed([(v, pointer_append(ptr, i)) for i, v in enumerate(node)
                                       if isinstance(v, (dict, list))]))

    def pointer_of(self, node: Any) -> str | None:
        """The JSON pointer of the object `node` in this document (the first place it appears), or
        None for an object made while compiling."""
        found = self._pointers.get(id(node))
        return found[1] if found is not None and found[0] is node else None

    def resolve(self, ref: Any, base: str, where: str = "") -> tuple[Any, str, str]:
        """The node `ref` names, its JSON pointer, and the base URI that holds inside it.

        `where` is the pointer of the ``$ref`` itself, for the error message.
        """
        if not isinstance(ref, str):
            raise SchemaError(f"$ref must be a string, got {ref!r}", where, "$ref")
        target = _join(base, ref)
        url, fragment = urldefrag(target)
        if url not in self._resources:
            raise SchemaError(
                f"$ref {ref!r} points into another document ({url}); remote references are "
                "refused: copy the schema into $defs and point at it with #/$defs/NAME",
                where, "$ref")
        document, document_ptr = self._resources[url]
        fragment = unquote(fragment)
        if fragment and not fragment.startswith("/"):
            found = self._anchors.get((url, fragment))
            if found is None:
                raise SchemaError(f"$ref {ref!r} names the anchor {fragment!r}, which no subschema "
                                  "declares ($anchor)", where, "$ref")
            return found[0], found[1], child_base(url, found[0])
        node, ptr = document, document_ptr
        for token in fragment.split("/")[1:]:
            token = token.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                raise SchemaError(f"$ref {ref!r} points at nothing: {token!r} is not in the schema",
                                  where, "$ref")
            ptr = pointer_append(ptr, token)
        return node, ptr, child_base(url, node)
