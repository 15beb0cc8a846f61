"""JSON Schema: the strict subset to regex text, the full compiler to terms, JSON's leaves and mask tables."""
