"""JSON Schema: the strict subset to regex text, the full compiler to terms, JSON's leaves and mask tables.

Importing it registers JSON's mask strategies and per-vocabulary tables with the layers below
(`brzozowski.json.masks`)."""

from . import masks as _masks  # noqa: F401  (registers the strategies and the vocabulary preparer)
