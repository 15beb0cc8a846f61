"""Regenerate the schema corpus in this folder, deterministically.

    /work/venv/bin/python benchmarks/corpus/make_corpus.py [--only GROUP,...]

Groups (one subfolder each, one schema per JSON file; see README.md for sources and licences):

- ``pydantic``: `model_json_schema()` of the hand-written models in `pydantic_models.py` and of
  `N_GENERATED_MODELS` models combined at random (seed `SEED`) from a pool of realistic field types.
- ``tools``: the `parameters` object of each OpenAI-style function definition in `tools.py`.
- ``handwritten``: the schemas of `handwritten.py` (draft-04/06/07/2020-12 styles, event schemas).
- ``openapi``: the component schemas of the hand-written OpenAPI documents in `openapi_components.py`
  (each component becomes a standalone schema; `#/components/schemas/X` refs become `#/$defs/X`),
  and the OpenAPI document schemas shipped by `openapi-spec-validator` / `openapi-schema-validator`.
- ``schemastore``: the SchemaStore schemas vendored by `check-jsonschema` (files under
  `MAX_COPY_BYTES` only), and ``config_parts``: their named definitions as standalone schemas.
- ``metaschemas``: the JSON Schema meta-schemas and vocabularies of `jsonschema-specifications`.

The copied groups need the harvest packages installed (`pip install check-jsonschema
openapi-spec-validator openapi-schema-validator`; they are not project dependencies): a group whose
package is missing is left as it is, with a message. Files are written with `indent=1` and keys in
their original order, since property order is part of what a decoder emits.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import json
import random
import re
import sys
from datetime import date, datetime, time, timedelta
from enum import Enum
from ipaddress import IPv4Address
from pathlib import Path
from typing import Any, Literal, Optional, Union
from uuid import UUID

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

SEED = 20261130
N_GENERATED_MODELS = 80
MAX_COPY_BYTES = 400_000  # skip gigantic vendored files (renovate, azure-pipelines: > 1.5 MB)
# Vendored schemas under a copyleft licence (check-jsonschema's vendor/README.md and licenses/):
# not copied, whatever their size.
NOT_PERMISSIVE = {"renovate.json": "AGPL-3.0", "snapcraft.json": "GPL-3.0"}
MIN_PART_PROPERTIES = 2  # a config definition becomes a corpus schema if it is this rich
MAX_PARTS_PER_FILE = 6


def write(path: Path, schema: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(schema, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def clear(folder: Path) -> None:
    if folder.exists():
        for old in folder.glob("*.json"):
            old.unlink()


# -- pydantic ------------------------------------------------------------------------------------

FIELD_NAMES = {  # names that fit each kind of field
    "str": ["name", "title", "description", "notes", "summary", "author", "owner", "reason", "city",
            "department", "role", "source", "target", "comment", "label", "address", "company"],
    "str_bounded": ["name", "title", "summary", "username", "display_name", "headline", "slug", "bio"],
    "str_pattern": ["code", "reference", "phone", "sku", "color", "identifier", "version", "email",
                    "commit", "handle", "period"],
    "int": ["count", "total", "quantity", "retries", "level", "age", "year", "position", "views"],
    "int_bounded": ["quantity", "age", "port", "priority", "page", "page_size", "rating", "limit",
                    "retries", "stock", "capacity", "floor"],
    "float": ["price", "weight", "height", "width", "salary", "amount", "distance", "balance"],
    "float_bounded": ["confidence", "score", "threshold", "temperature", "discount", "probability"],
    "bool": ["enabled", "visible", "verified", "active", "archived", "is_public", "paid", "urgent"],
    "literal": ["status", "category", "size", "kind", "plan", "region", "frequency", "method"],
    "enum": ["status", "tier", "color", "direction", "payment_method", "stage", "severity"],
    "date": ["start_date", "end_date", "due", "birthday", "issued_on", "valid_until"],
    "datetime": ["created_at", "updated_at", "scheduled_for", "completed_at", "timestamp"],
    "uuid": ["id", "uuid", "parent_id", "request_id", "account_id"],
    "time": ["opens_at", "closes_at", "alarm", "departure_time"],
    "timedelta": ["duration", "timeout", "interval", "ttl", "elapsed"],
    "url": ["url", "homepage", "callback_url", "avatar", "documentation"],
    "ipv4": ["ip_address", "gateway", "client_ip"],
    "list": ["tags", "items", "steps", "labels", "attachments", "members", "entries", "lines"],
    "dict": ["metadata", "attributes", "options", "settings", "limits", "headers", "counts"],
    "union": ["value", "identifier", "payload", "result", "selector"],
    "model": ["owner", "details", "location", "contact", "config", "parent", "summary_info"],
}
MODEL_NAMES = [
    "Order", "Shipment", "Patient", "Appointment", "Employee", "Course", "Student", "Vehicle",
    "Booking", "Flight", "Hotel", "Article", "Podcast", "Episode", "Playlist", "Invoice", "Lead",
    "Campaign", "Asset", "Incident", "Alert", "Job", "Build", "Release", "Package", "Repository",
    "Issue", "Contract", "Policy", "Claim", "Device", "Reading", "Task", "Project", "Sprint",
    "Warehouse", "Supplier", "Coupon", "Subscription", "Workout", "Meal", "Trip", "Listing",
]
WORDS = [
    "draft", "active", "archived", "pending", "done", "failed", "new", "open", "closed", "red",
    "green", "blue", "small", "medium", "large", "north", "south", "east", "west", "low", "high",
    "daily", "weekly", "monthly", "basic", "pro", "enterprise", "cash", "card", "transfer",
]
PATTERNS = [
    r"^[A-Z]{2,3}-\d{3,6}$", r"^\+?[0-9 ()-]{7,20}$", r"^[a-z][a-z0-9_]*$", r"^\d{4}-\d{2}$",
    r"^#[0-9a-fA-F]{6}$", r"^[A-Z][a-z]+( [A-Z][a-z]+)*$", r"^v\d+\.\d+\.\d+$", r"[a-z]+",
    r"^[^@]+@[^@]+$", r"^[0-9a-f]{40}$",
]


class _FieldMaker:
    """Random, realistic field annotations for generated models (one `random.Random`, seeded)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.n_models = 0
        self.n_enums = 0

    def scalar(self) -> tuple[Any, dict, str]:
        """A scalar annotation, its `Field` constraints and its kind (a key of `FIELD_NAMES`)."""
        from pydantic import AnyUrl

        rng = self.rng
        kind = rng.choice(
            ["str", "str", "str_bounded", "str_pattern", "int", "int_bounded", "float", "float_bounded",
             "bool", "literal", "enum", "date", "datetime", "uuid", "time", "timedelta", "url", "ipv4"]
        )
        if kind == "str":
            return str, {}, kind
        if kind == "str_bounded":
            lo = rng.choice([0, 1, 2, 3])
            return str, {"min_length": lo, "max_length": lo + rng.choice([5, 20, 64, 255])}, kind
        if kind == "str_pattern":
            return str, {"pattern": rng.choice(PATTERNS)}, kind
        if kind == "int":
            return int, {}, kind
        if kind == "int_bounded":
            lo = rng.choice([0, 1, -10, 100])
            bounds = rng.choice([("ge", "le"), ("gt", "lt"), ("ge", None), (None, "le"), ("gt", None)])
            out = {}
            if bounds[0]:
                out[bounds[0]] = lo
            if bounds[1]:
                out[bounds[1]] = lo + rng.choice([5, 10, 99, 1000, 65535])
            return int, out, kind
        if kind == "float":
            return float, {}, kind
        if kind == "float_bounded":
            return float, rng.choice([{"ge": 0.0, "le": 1.0}, {"gt": 0}, {"ge": -273.15}, {"ge": 0, "lt": 100}]), kind
        if kind == "bool":
            return bool, {}, kind
        if kind == "literal":
            values = tuple(rng.sample(WORDS, rng.randint(2, 5)))
            return Literal[values], {}, kind  # type: ignore[valid-type]
        if kind == "enum":
            self.n_enums += 1
            values = rng.sample(WORDS, rng.randint(2, 6))
            enum = Enum(f"Choice{self.n_enums}", {v.upper(): v for v in values}, type=str)
            return enum, {}, kind
        return {
            "date": date, "datetime": datetime, "uuid": UUID, "time": time, "timedelta": timedelta,
            "url": AnyUrl, "ipv4": IPv4Address,
        }[kind], {}, kind

    def annotation(self, depth: int) -> tuple[Any, dict, str]:
        """An annotation (scalar, list, dict, union or nested model), its constraints and kind."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.55 or depth >= 2:
            return self.scalar()
        if roll < 0.70:
            inner, _, _ = self.annotation(depth + 1)
            bounds = rng.choice([{}, {"min_length": 1}, {"max_length": 10}, {"min_length": 1, "max_length": 5}])
            return list[inner], bounds, "list"  # type: ignore[valid-type]
        if roll < 0.77:
            inner, _, _ = self.scalar()
            return dict[str, inner], {}, "dict"  # type: ignore[valid-type]
        if roll < 0.84:
            first, _, _ = self.scalar()
            second, _, _ = self.scalar()
            return Union[first, second], {}, "union"
        return self.model(depth + 1), {}, "model"

    def model(self, depth: int) -> Any:
        from pydantic import ConfigDict, Field, create_model

        rng = self.rng
        self.n_models += 1
        name = f"{rng.choice(MODEL_NAMES)}{self.n_models}"
        fields: dict[str, Any] = {}
        for _ in range(rng.randint(2, 9 if depth == 0 else 5)):
            annotation, constraints, kind = self.annotation(depth)
            unused = [n for n in FIELD_NAMES[kind] if n not in fields]
            field_name = rng.choice(unused) if unused else f"{kind}_{len(fields)}"
            if rng.random() < 0.3:
                description = f"The {field_name.replace('_', ' ')} of the {name.rstrip('0123456789').lower()}"
                constraints = {**constraints, "description": description}
            if rng.random() < 0.3:
                fields[field_name] = (Optional[annotation], Field(default=None, **constraints))
            else:
                fields[field_name] = (annotation, Field(**constraints))
        config = ConfigDict(extra=rng.choice(["ignore", "ignore", "forbid", "allow"]))
        return create_model(name, __config__=config, **fields)


def make_pydantic(out: Path) -> int:
    from pydantic_models import HAND_WRITTEN

    clear(out)
    for stem, model in HAND_WRITTEN:
        write(out / f"{stem}.json", model.model_json_schema())
    maker = _FieldMaker(random.Random(SEED))
    for number in range(N_GENERATED_MODELS):
        model = maker.model(0)
        stem = re.sub(r"(?<!^)(?=[A-Z])", "_", model.__name__.rstrip("0123456789")).lower()
        mode = "serialization" if number % 5 == 4 else "validation"
        write(out / f"generated_{number:03d}_{stem}.json", model.model_json_schema(mode=mode))
    return len(HAND_WRITTEN) + N_GENERATED_MODELS


# -- tools and OpenAPI components -----------------------------------------------------------------


def make_tools(out: Path) -> int:
    from tools import TOOLS

    clear(out)
    for tool in TOOLS:
        function = tool["function"]
        write(out / f"{function['name']}.json", function["parameters"])
    return len(TOOLS)


def make_handwritten(out: Path) -> int:
    from handwritten import SCHEMAS

    clear(out)
    for stem, schema in SCHEMAS.items():
        write(out / f"{stem}.json", schema)
    return len(SCHEMAS)


def _rewrite_refs(node: Any, old: str, new: str) -> Any:
    if isinstance(node, dict):
        return {
            k: (new + v[len(old):] if k == "$ref" and isinstance(v, str) and v.startswith(old) else _rewrite_refs(v, old, new))
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_rewrite_refs(v, old, new) for v in node]
    return node


def _refs(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"]} if isinstance(node.get("$ref"), str) else set()
        for v in node.values():
            found |= _refs(v)
        return found
    if isinstance(node, list):
        return set().union(*(_refs(v) for v in node)) if node else set()
    return set()


def _standalone(definitions: dict, name: str, prefix: str, defs_key: str, extra_root: dict) -> dict | None:
    """Definition `name` as a root schema carrying the definitions it reaches by `prefix` refs, or
    None if it also refers to other parts of its document (it would not stand alone)."""
    reached: list[str] = []
    todo = [name]
    while todo:
        current = todo.pop()
        if current in reached:
            continue
        if current not in definitions:
            return None
        reached.append(current)
        for ref in _refs(definitions[current]):
            if ref.startswith(prefix):
                todo.append(ref[len(prefix):].split("/")[0])
            elif ref.startswith("#"):
                return None
    root = dict(extra_root)
    body = definitions[name]
    root.update(body if isinstance(body, dict) else {"allOf": [body]})
    root = _rewrite_refs(root, prefix + name + "/", "#/")
    if len(reached) > 1 or prefix + name in _refs(root):
        root[defs_key] = {k: definitions[k] for k in sorted(reached)}
    return root


def make_openapi(out: Path) -> int:
    from openapi_components import DOCUMENTS

    clear(out)
    count = 0
    for doc_name, components in DOCUMENTS.items():
        prefix = "#/components/schemas/"
        converted = {k: _rewrite_refs(v, prefix, "#/$defs/") for k, v in components.items()}
        for name in components:
            schema = _standalone(converted, name, "#/$defs/", "$defs", {})
            assert schema is not None, f"{doc_name}: {name} refers outside its components"
            write(out / f"{doc_name}__{name}.json", schema)
            count += 1
    count += _copy_package_files(
        out,
        [("openapi-spec-validator", "openapi_spec_validator", "resources/schemas/*/schema.json"),
         ("openapi-schema-validator", "openapi_schema_validator", "schemas/**/*")],
        clear_first=False,
    )
    return count


# -- copied material ------------------------------------------------------------------------------


def _copy_licences(out: Path, dist: str, root: Path, copied: list[str]) -> None:
    """Put the package's licence files, and (check-jsonschema) those of the copied vendored schemas,
    into `out`/licenses, named after the package."""
    licences = out / "licenses"
    licences.mkdir(parents=True, exist_ok=True)
    for file in importlib.metadata.distribution(dist).files or []:
        if "licenses" in file.parts and ".dist-info" in file.parts[0]:
            target = licences / f"{dist}.{file.name}"
            target.write_bytes(Path(file.locate()).read_bytes())
    vendored = root / "builtin_schemas" / "vendor" / "licenses"
    for licence in sorted(vendored.glob("LICENSE.*")) if vendored.is_dir() else []:
        if licence.suffix[1:] == "schemastore" or any(name.startswith(licence.suffix[1:]) for name in copied):
            (licences / f"{dist}.vendor.{licence.name}").write_bytes(licence.read_bytes())


def _copy_package_files(out: Path, sources: list[tuple[str, str, str]], clear_first: bool = True) -> int:
    """Copy the JSON files matching each glob from an installed package (skipping huge ones and
    copyleft ones), with the licence files that cover them."""
    if clear_first:
        clear(out)
        for old in (out / "licenses").glob("*"):
            old.unlink()
    count = 0
    for dist, module_name, pattern in sources:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            print(f"  {dist} is not installed: its files are left as they are", file=sys.stderr)
            continue
        root = Path(module.__file__).parent
        version = importlib.metadata.version(dist)
        copied: list[str] = []
        for path in sorted(root.glob(pattern)):
            if not path.is_file() or "licenses" in path.parts:
                continue
            if path.name in NOT_PERMISSIVE:
                print(f"  skip {path.relative_to(root)} ({NOT_PERMISSIVE[path.name]})", file=sys.stderr)
                continue
            if path.stat().st_size > MAX_COPY_BYTES:
                print(f"  skip {path.relative_to(root)} ({path.stat().st_size} bytes)", file=sys.stderr)
                continue
            try:
                schema = json.loads(path.read_text(encoding="utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                continue  # not a schema (a README, a Python file)
            stem = "_".join(path.relative_to(root).with_suffix("").parts[-3:])
            stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{dist}-{version}_{stem}")
            write(out / f"{stem}.json", schema)
            copied.append(path.name)
            count += 1
        _copy_licences(out, dist, root, copied)
    return count


def make_schemastore(out: Path) -> int:
    return _copy_package_files(
        out, [("check-jsonschema", "check_jsonschema", "builtin_schemas/vendor/*.json")]
    )


def make_config_parts(out: Path) -> int:
    """Named definitions of the vendored SchemaStore schemas, each as a standalone schema."""
    clear(out)
    source = HERE / "schemastore"
    count = 0
    for path in sorted(source.glob("*.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        for defs_key in ("definitions", "$defs"):
            definitions = schema.get(defs_key)
            if not isinstance(definitions, dict):
                continue
            prefix = f"#/{defs_key}/"
            rich = [
                name for name, body in definitions.items()
                if isinstance(body, dict) and len(body.get("properties", {})) >= MIN_PART_PROPERTIES
            ]
            extra_root = {"$schema": schema["$schema"]} if "$schema" in schema else {}
            parts = [(n, _standalone(definitions, n, prefix, defs_key, extra_root)) for n in rich]
            for name, part in [(n, p) for n, p in parts if p is not None][:MAX_PARTS_PER_FILE]:
                safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
                write(out / f"{path.stem.split('_')[-1]}__{safe}.json", part)
                count += 1
    return count


def make_metaschemas(out: Path) -> int:
    return _copy_package_files(
        out, [("jsonschema-specifications", "jsonschema_specifications", "schemas/**/*")]
    )


GROUPS = {
    "pydantic": make_pydantic,
    "tools": make_tools,
    "handwritten": make_handwritten,
    "openapi": make_openapi,
    "schemastore": make_schemastore,
    "config_parts": make_config_parts,
    "metaschemas": make_metaschemas,
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="comma-separated groups (default: all)")
    args = parser.parse_args(argv)
    chosen = args.only.split(",") if args.only else list(GROUPS)
    for group in chosen:
        if group not in GROUPS:
            parser.error(f"unknown group {group!r}; known: {', '.join(GROUPS)}")
        count = GROUPS[group](HERE / group)
        print(f"{group}: {count} schemas")


if __name__ == "__main__":
    main()
