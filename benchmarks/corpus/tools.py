"""Hand-written OpenAI-style function (tool) definitions: `TOOLS`, each ``{"type": "function",
"function": {"name", "description", "parameters"}}``; `make_corpus.py` writes each `parameters` object.

They follow what tool-calling applications write: enums, nested objects, arrays, required subsets,
descriptions, and `additionalProperties: false` on the "strict" ones (where every property is
required and optional ones are typed as a union with null, as strict mode demands).
"""

from __future__ import annotations

from typing import Any


def tool(name: str, description: str, properties: dict, required: list[str] | None = None,
         strict: bool = False) -> dict[str, Any]:
    """One function definition; `strict` closes the objects and requires every property."""
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if strict:
        parameters["required"] = list(properties)
        parameters["additionalProperties"] = False
    elif required:
        parameters["required"] = required
    function: dict[str, Any] = {"name": name, "description": description, "parameters": parameters}
    if strict:
        function["strict"] = True
    return {"type": "function", "function": function}


def s(description: str | None = None, **extra: Any) -> dict:
    return {"type": "string", **({"description": description} if description else {}), **extra}


def i(description: str | None = None, **extra: Any) -> dict:
    return {"type": "integer", **({"description": description} if description else {}), **extra}


def n(description: str | None = None, **extra: Any) -> dict:
    return {"type": "number", **({"description": description} if description else {}), **extra}


def b(description: str | None = None, **extra: Any) -> dict:
    return {"type": "boolean", **({"description": description} if description else {}), **extra}


def e(values: list, description: str | None = None, **extra: Any) -> dict:
    kind = "string" if all(isinstance(v, str) for v in values) else "integer"
    return {"type": kind, "enum": values, **({"description": description} if description else {}), **extra}


def arr(items: dict, description: str | None = None, **extra: Any) -> dict:
    return {"type": "array", "items": items, **({"description": description} if description else {}), **extra}


def obj(properties: dict, required: list[str] | None = None, closed: bool = False,
        description: str | None = None) -> dict:
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if description:
        out["description"] = description
    if required:
        out["required"] = required
    if closed:
        out["additionalProperties"] = False
    return out


def nullable(schema: dict) -> dict:
    kind = schema["type"]
    return {**schema, "type": [kind, "null"]}


UNIT = e(["celsius", "fahrenheit"], "Temperature unit")
LOCATION = s("City and country, e.g. 'Oslo, Norway'")
ISO_DATE = s("Date in YYYY-MM-DD format", format="date")
DATE_TIME = s("ISO 8601 date and time", format="date-time")
EMAIL = s("Email address", format="email")
MONEY = obj({"amount": n("Amount", minimum=0), "currency": e(["USD", "EUR", "GBP", "JPY", "NOK"])},
            ["amount", "currency"])
ADDRESS = obj({"line1": s(), "line2": s(), "city": s(), "postal_code": s(), "country": s("ISO 3166-1 alpha-2", minLength=2, maxLength=2)},
              ["line1", "city", "country"])

TOOLS: list[dict[str, Any]] = [
    # -- weather and places
    tool("get_current_weather", "Get the current weather in a given location",
         {"location": LOCATION, "unit": UNIT}, ["location"]),
    tool("get_weather_forecast", "Get a multi-day weather forecast",
         {"location": LOCATION, "days": i("Number of days", minimum=1, maximum=14), "unit": UNIT,
          "include_hourly": b("Include hourly breakdown")}, ["location", "days"]),
    tool("get_air_quality", "Air quality index for coordinates",
         {"latitude": n(minimum=-90, maximum=90), "longitude": n(minimum=-180, maximum=180),
          "pollutants": arr(e(["pm25", "pm10", "o3", "no2", "so2", "co"]), uniqueItems=True)},
         ["latitude", "longitude"]),
    tool("find_nearby_places", "Search for places near a location",
         {"location": LOCATION, "radius_m": i("Search radius in metres", minimum=100, maximum=50000),
          "type": e(["restaurant", "cafe", "bar", "museum", "park", "pharmacy", "gas_station"]),
          "open_now": b(), "min_rating": n(minimum=0, maximum=5)}, ["location", "type"]),
    tool("get_directions", "Route between two places",
         {"origin": s("Start address"), "destination": s("End address"),
          "mode": e(["driving", "walking", "bicycling", "transit"]),
          "avoid": arr(e(["tolls", "highways", "ferries"])), "departure_time": DATE_TIME},
         ["origin", "destination"]),
    tool("get_timezone", "Time zone of a location", {"location": LOCATION, "timestamp": i(minimum=0)},
         strict=True),
    tool("convert_units", "Convert a value between units",
         {"value": n(), "from_unit": s(), "to_unit": s(),
          "precision": nullable(i("Decimal places", minimum=0, maximum=10))}, strict=True),
    # -- search and knowledge
    tool("web_search", "Search the web",
         {"query": s("Search query", minLength=1), "num_results": i(minimum=1, maximum=20),
          "recency_days": i(minimum=1), "site": s("Restrict to one domain"),
          "safe_search": e(["off", "moderate", "strict"])}, ["query"]),
    tool("search_news", "Search recent news articles",
         {"query": s(), "from_date": ISO_DATE, "to_date": ISO_DATE,
          "language": e(["en", "de", "fr", "es", "it", "nb", "ja"]),
          "sort_by": e(["relevance", "published_at", "popularity"])}, ["query"]),
    tool("search_wikipedia", "Look up a Wikipedia article", {"title": s(), "lang": s(pattern="^[a-z]{2}$"),
         "sections": arr(s(), maxItems=5)}, ["title"]),
    tool("retrieve_documents", "Retrieve passages from the knowledge base",
         {"query": s(), "top_k": i(minimum=1, maximum=50),
          "filters": obj({"source": arr(s()), "author": s(), "published_after": ISO_DATE,
                          "tags": arr(s(), maxItems=10)}),
          "rerank": b()}, ["query"]),
    tool("answer_with_sources", "Give the final answer and the sources used",
         {"answer": s(), "sources": arr(obj({"url": s(format="uri"), "title": s(), "quote": s(maxLength=300)},
                                             ["url"], closed=True), minItems=1)}, strict=True),
    tool("lookup_definition", "Dictionary definition of a word",
         {"word": s(pattern="^[A-Za-z' -]+$"), "language": e(["en", "fr", "de"])}, ["word"]),
    tool("translate_text", "Translate text",
         {"text": s(maxLength=5000), "source_language": s(), "target_language": s(),
          "formality": e(["default", "more", "less"])}, ["text", "target_language"]),
    tool("summarize_text", "Summarize text",
         {"text": s(), "max_words": i(minimum=10, maximum=1000),
          "style": e(["bullet_points", "paragraph", "tldr"])}, ["text"]),
    # -- calendar, email, messaging
    tool("create_calendar_event", "Create an event in the user's calendar",
         {"title": s(maxLength=200), "start": DATE_TIME, "end": DATE_TIME,
          "attendees": arr(EMAIL, maxItems=50), "location": s(), "description": s(),
          "reminders": arr(obj({"method": e(["email", "popup"]), "minutes": i(minimum=0, maximum=40320)},
                               ["method", "minutes"]), maxItems=5),
          "visibility": e(["default", "public", "private"])}, ["title", "start", "end"]),
    tool("list_calendar_events", "List events between two times",
         {"time_min": DATE_TIME, "time_max": DATE_TIME, "calendar_id": s(),
          "max_results": i(minimum=1, maximum=250)}, ["time_min", "time_max"]),
    tool("update_calendar_event", "Change fields of an existing event",
         {"event_id": s(), "changes": obj({"title": s(), "start": DATE_TIME, "end": DATE_TIME,
                                           "location": s(), "status": e(["confirmed", "tentative", "cancelled"])})},
         ["event_id", "changes"]),
    tool("find_free_slot", "Find a common free slot",
         {"participants": arr(EMAIL, minItems=1), "duration_minutes": e([15, 30, 45, 60, 90, 120]),
          "earliest": DATE_TIME, "latest": DATE_TIME, "working_hours_only": b()},
         ["participants", "duration_minutes"]),
    tool("send_email", "Send an email",
         {"to": arr(EMAIL, minItems=1), "cc": arr(EMAIL), "bcc": arr(EMAIL), "subject": s(maxLength=255),
          "body": s(), "html": b(), "attachments": arr(obj({"filename": s(), "content_base64": s()},
                                                             ["filename", "content_base64"]))},
         ["to", "subject", "body"]),
    tool("search_emails", "Search the mailbox",
         {"query": s(), "folder": e(["inbox", "sent", "drafts", "spam", "trash", "archive"]),
          "unread_only": b(), "after": ISO_DATE, "before": ISO_DATE, "limit": i(minimum=1, maximum=100)},
         ["query"]),
    tool("send_slack_message", "Post a message to a Slack channel",
         {"channel": s(pattern="^[#@]?[a-z0-9_-]+$"), "text": s(maxLength=4000), "thread_ts": s(),
          "mention_users": arr(s())}, ["channel", "text"]),
    tool("send_sms", "Send a text message", {"phone_number": s(pattern=r"^\+[1-9]\d{6,14}$"),
         "message": s(maxLength=160)}, strict=True),
    tool("set_reminder", "Set a reminder",
         {"text": s(), "remind_at": DATE_TIME,
          "repeat": nullable(e(["daily", "weekdays", "weekly", "monthly"]))}, strict=True),
    tool("create_todo", "Add an item to the to-do list",
         {"title": s(), "due_date": ISO_DATE, "priority": e(["low", "normal", "high", "urgent"]),
          "project": s(), "labels": arr(s(), maxItems=5)}, ["title"]),
    # -- e-commerce
    tool("search_products", "Search the product catalog",
         {"query": s(), "category": e(["electronics", "books", "clothing", "home", "toys", "sports", "beauty"]),
          "price_min": n(minimum=0), "price_max": n(minimum=0), "brand": arr(s()),
          "sort": e(["relevance", "price_asc", "price_desc", "rating", "newest"]),
          "in_stock_only": b(), "page": i(minimum=1)}, ["query"]),
    tool("get_product_details", "Details of one product", {"product_id": s(pattern="^[A-Z0-9]{10}$")},
         ["product_id"]),
    tool("add_to_cart", "Add a product to the cart",
         {"product_id": s(), "quantity": i(minimum=1, maximum=99),
          "options": obj({"size": e(["XS", "S", "M", "L", "XL", "XXL"]), "color": s()})},
         ["product_id", "quantity"]),
    tool("place_order", "Place an order for the items in the cart",
         {"cart_id": s(), "shipping_address": ADDRESS,
          "shipping_method": e(["standard", "express", "next_day", "pickup"]),
          "payment_method": obj({"type": e(["card", "paypal", "invoice"]), "token": s()}, ["type"]),
          "coupon_code": s(pattern="^[A-Z0-9]{4,12}$"), "gift_message": s(maxLength=200)},
         ["cart_id", "shipping_address", "payment_method"]),
    tool("track_order", "Track an order", {"order_id": s(pattern="^ORD-[0-9]{8}$")}, strict=True),
    tool("request_refund", "Request a refund",
         {"order_id": s(), "items": arr(obj({"sku": s(), "quantity": i(minimum=1)}, ["sku", "quantity"],
                                            closed=True), minItems=1),
          "reason": e(["damaged", "wrong_item", "not_as_described", "late", "changed_mind", "other"]),
          "comment": nullable(s(maxLength=1000))}, strict=True),
    tool("apply_discount", "Apply a discount to an order",
         {"order_id": s(), "percent": n(exclusiveMinimum=0, maximum=100), "reason": s()},
         ["order_id", "percent"]),
    tool("check_inventory", "Stock levels per warehouse",
         {"skus": arr(s(), minItems=1, maxItems=100), "warehouses": arr(s())}, ["skus"]),
    tool("create_invoice", "Create an invoice",
         {"customer_id": s(), "lines": arr(obj({"description": s(), "quantity": n(exclusiveMinimum=0),
                                                "unit_price": MONEY, "tax_rate": n(minimum=0, maximum=1)},
                                               ["description", "quantity", "unit_price"]), minItems=1),
          "due_date": ISO_DATE, "notes": s()}, ["customer_id", "lines"]),
    # -- travel
    tool("search_flights", "Search for flights",
         {"origin": s("IATA code", pattern="^[A-Z]{3}$"), "destination": s("IATA code", pattern="^[A-Z]{3}$"),
          "departure_date": ISO_DATE, "return_date": ISO_DATE,
          "passengers": obj({"adults": i(minimum=1, maximum=9), "children": i(minimum=0, maximum=8),
                             "infants": i(minimum=0, maximum=4)}, ["adults"]),
          "cabin": e(["economy", "premium_economy", "business", "first"]), "nonstop": b()},
         ["origin", "destination", "departure_date"]),
    tool("book_hotel", "Book a hotel room",
         {"hotel_id": s(), "check_in": ISO_DATE, "check_out": ISO_DATE, "rooms": i(minimum=1, maximum=5),
          "guests": arr(obj({"first_name": s(), "last_name": s(), "email": EMAIL}, ["first_name", "last_name"]),
                        minItems=1),
          "special_requests": s(maxLength=500)}, ["hotel_id", "check_in", "check_out", "guests"]),
    tool("rent_car", "Reserve a rental car",
         {"pickup_location": s(), "dropoff_location": s(), "pickup_time": DATE_TIME, "dropoff_time": DATE_TIME,
          "car_class": e(["mini", "economy", "compact", "suv", "van", "luxury"]), "driver_age": i(minimum=18, maximum=99)},
         ["pickup_location", "pickup_time", "dropoff_time"]),
    tool("get_exchange_rate", "Currency exchange rate",
         {"base": s(pattern="^[A-Z]{3}$"), "quote": s(pattern="^[A-Z]{3}$"), "date": nullable(ISO_DATE)},
         strict=True),
    # -- databases and data
    tool("run_sql_query", "Run a read-only SQL query against the analytics database",
         {"query": s("A single SELECT statement"), "database": e(["analytics", "sales", "crm"]),
          "max_rows": i(minimum=1, maximum=10000), "timeout_seconds": i(minimum=1, maximum=300)},
         ["query", "database"]),
    tool("query_table", "Structured query of one table",
         {"table": e(["customers", "orders", "order_items", "products", "events"]),
          "columns": arr(s(), minItems=1),
          "filters": arr(obj({"column": s(), "op": e(["=", "!=", "<", "<=", ">", ">=", "in", "like", "is_null"]),
                              "value": {"type": ["string", "number", "boolean", "null", "array"],
                                        "items": {"type": ["string", "number"]}}},
                             ["column", "op"], closed=True)),
          "order_by": arr(obj({"column": s(), "direction": e(["asc", "desc"])}, ["column"])),
          "limit": i(minimum=1, maximum=1000), "offset": i(minimum=0)}, ["table", "columns"]),
    tool("insert_record", "Insert a record", {"table": s(), "record": {"type": "object",
         "additionalProperties": {"type": ["string", "number", "boolean", "null"]}}}, ["table", "record"]),
    tool("update_records", "Update records matching a filter",
         {"table": s(), "where": {"type": "object", "additionalProperties": True, "minProperties": 1},
          "set": {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean", "null"]},
                  "minProperties": 1},
          "dry_run": b()}, ["table", "where", "set"]),
    tool("create_chart", "Plot data as a chart",
         {"chart_type": e(["line", "bar", "pie", "scatter", "area", "histogram"]), "title": s(),
          "x": arr({"type": ["string", "number"]}, minItems=1), "series": arr(obj({"name": s(),
          "values": arr(nullable(n()), minItems=1), "color": s(pattern="^#[0-9a-fA-F]{6}$")}, ["name", "values"]),
                                                                              minItems=1, maxItems=10),
          "x_label": s(), "y_label": s(), "stacked": b()}, ["chart_type", "x", "series"]),
    tool("describe_dataset", "Summary statistics of a dataset column",
         {"dataset": s(), "column": s(), "statistics": arr(e(["mean", "median", "std", "min", "max", "count",
                                                              "nunique", "quantiles"]), minItems=1)},
         ["dataset", "column"]),
    tool("vector_search", "Nearest neighbours in a vector index",
         {"index": s(), "vector": arr(n(), minItems=8, maxItems=8), "k": i(minimum=1, maximum=100),
          "metric": e(["cosine", "dot", "l2"]), "filter": {"type": "object"}}, ["index", "vector"]),
    # -- files and code
    tool("read_file", "Read a text file", {"path": s("Path relative to the workspace"),
         "start_line": i(minimum=1), "end_line": i(minimum=1), "encoding": e(["utf-8", "latin-1", "utf-16"])},
         ["path"]),
    tool("write_file", "Write a text file", {"path": s(), "content": s(), "mode": e(["overwrite", "append"]),
         "create_dirs": b()}, ["path", "content"]),
    tool("list_directory", "List a directory", {"path": s(), "recursive": b(), "pattern": s("Glob pattern"),
         "include_hidden": b(), "max_depth": i(minimum=1, maximum=10)}, ["path"]),
    tool("delete_file", "Delete a file", {"path": s(), "confirm": {"type": "boolean", "const": True}},
         ["path", "confirm"]),
    tool("move_file", "Move or rename a file", {"source": s(), "destination": s(), "overwrite": b()},
         strict=True),
    tool("search_code", "Search the repository",
         {"pattern": s("Regular expression"), "path": s(), "file_types": arr(e(["py", "js", "ts", "go", "rs",
          "java", "md", "json", "yaml"])), "case_sensitive": b(), "max_results": i(minimum=1, maximum=500)},
         ["pattern"]),
    tool("apply_patch", "Apply edits to a file",
         {"path": s(), "edits": arr(obj({"old_text": s(minLength=1), "new_text": s()}, ["old_text", "new_text"],
                                        closed=True), minItems=1)}, strict=True),
    tool("run_python", "Execute Python code in a sandbox",
         {"code": s(), "timeout_seconds": i(minimum=1, maximum=120), "packages": arr(s(pattern="^[A-Za-z0-9_.-]+$"))},
         ["code"]),
    tool("run_shell_command", "Run a shell command",
         {"command": s(), "cwd": s(), "env": {"type": "object", "additionalProperties": {"type": "string"}},
          "timeout_seconds": i(minimum=1, maximum=3600)}, ["command"]),
    tool("create_github_issue", "Open an issue on GitHub",
         {"repo": s(pattern="^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$"), "title": s(minLength=1, maxLength=256),
          "body": s(), "labels": arr(s()), "assignees": arr(s(), maxItems=10), "milestone": i(minimum=1)},
         ["repo", "title"]),
    tool("create_pull_request", "Open a pull request",
         {"repo": s(), "head": s(), "base": s(), "title": s(), "body": s(), "draft": b(),
          "reviewers": arr(s())}, ["repo", "head", "base", "title"]),
    tool("git_commit", "Commit staged changes", {"message": s(minLength=1, maxLength=500),
         "files": arr(s(), minItems=1), "amend": b(), "sign_off": b()}, ["message", "files"]),
    # -- business and CRM
    tool("create_contact", "Create a CRM contact",
         {"first_name": s(), "last_name": s(), "email": EMAIL, "phone": s(), "company": s(),
          "lifecycle_stage": e(["subscriber", "lead", "opportunity", "customer", "evangelist"]),
          "address": ADDRESS, "tags": arr(s())}, ["first_name", "last_name", "email"]),
    tool("log_call", "Log a phone call",
         {"contact_id": s(), "direction": e(["inbound", "outbound"]), "duration_seconds": i(minimum=0),
          "outcome": e(["connected", "voicemail", "no_answer", "busy", "wrong_number"]), "notes": s()},
         ["contact_id", "direction", "outcome"]),
    tool("create_support_ticket", "Create a support ticket",
         {"subject": s(maxLength=150), "description": s(),
          "priority": e(["low", "normal", "high", "urgent"]),
          "category": e(["billing", "technical", "account", "shipping", "other"]),
          "customer": obj({"id": s(), "email": EMAIL, "name": s()}, ["email"]),
          "attachments": arr(s(format="uri"))}, ["subject", "description", "customer"]),
    tool("classify_ticket", "Classify a support ticket",
         {"category": e(["billing", "technical", "account", "shipping", "other"]),
          "sentiment": e(["positive", "neutral", "negative"]), "urgency": i(minimum=1, maximum=5),
          "summary": s(maxLength=200)}, strict=True),
    tool("schedule_meeting", "Schedule a meeting with a lead",
         {"lead_id": s(), "proposed_times": arr(DATE_TIME, minItems=1, maxItems=3),
          "duration_minutes": i(minimum=15, maximum=240, multipleOf=15),
          "meeting_type": e(["video", "phone", "in_person"])}, ["lead_id", "proposed_times"]),
    tool("approve_expense", "Approve or reject an expense report",
         {"expense_id": s(), "decision": e(["approve", "reject", "request_changes"]),
          "comment": nullable(s())}, strict=True),
    tool("submit_timesheet", "Submit hours worked",
         {"employee_id": s(), "week_start": ISO_DATE,
          "entries": arr(obj({"date": ISO_DATE, "project": s(), "hours": n(minimum=0, maximum=24),
                              "billable": b()}, ["date", "project", "hours"]), minItems=1, maxItems=7)},
         ["employee_id", "week_start", "entries"]),
    # -- home, devices, media
    tool("set_thermostat", "Set the thermostat",
         {"room": e(["living_room", "bedroom", "kitchen", "office", "bathroom"]),
          "temperature": n(minimum=10, maximum=30), "mode": e(["heat", "cool", "auto", "off"])},
         ["room", "temperature"]),
    tool("control_lights", "Turn lights on or off",
         {"room": s(), "state": e(["on", "off"]), "brightness": i(minimum=0, maximum=100),
          "color": s(pattern="^#[0-9a-fA-F]{6}$")}, ["room", "state"]),
    tool("play_music", "Play music",
         {"query": s(), "type": e(["track", "album", "artist", "playlist"]), "shuffle": b(),
          "volume": i(minimum=0, maximum=100), "device": s()}, ["query"]),
    tool("set_timer", "Start a timer", {"duration_seconds": i(minimum=1, maximum=86400), "label": s()},
         ["duration_seconds"]),
    tool("lock_door", "Lock or unlock a door", {"door": e(["front", "back", "garage"]), "locked": b()},
         strict=True),
    tool("generate_image", "Generate an image from a prompt",
         {"prompt": s(maxLength=4000), "size": e(["256x256", "512x512", "1024x1024", "1792x1024", "1024x1792"]),
          "style": e(["vivid", "natural"]), "n": i(minimum=1, maximum=4), "seed": i(minimum=0)},
         ["prompt"]),
    tool("transcribe_audio", "Transcribe an audio file",
         {"file_url": s(format="uri"), "language": s(), "diarize": b(),
          "timestamps": e(["none", "segment", "word"])}, ["file_url"]),
    # -- finance and health
    tool("get_stock_price", "Latest stock price", {"symbol": s(pattern="^[A-Z.]{1,6}$"),
         "exchange": e(["NYSE", "NASDAQ", "LSE", "OSE", "TSE"])}, ["symbol"]),
    tool("get_stock_history", "Historical prices",
         {"symbol": s(), "start": ISO_DATE, "end": ISO_DATE, "interval": e(["1d", "1wk", "1mo"]),
          "adjusted": b()}, ["symbol", "start"]),
    tool("transfer_money", "Transfer money between accounts",
         {"from_account": s(pattern="^[0-9]{11}$"), "to_account": s(pattern="^[0-9]{11}$"), "amount": MONEY,
          "message": s(maxLength=140), "scheduled_date": ISO_DATE}, ["from_account", "to_account", "amount"]),
    tool("calculate_loan", "Monthly payment of a loan",
         {"principal": n(exclusiveMinimum=0), "annual_rate_percent": n(minimum=0, maximum=100),
          "years": i(minimum=1, maximum=50), "type": e(["annuity", "serial"])}, strict=True),
    tool("log_workout", "Log a workout",
         {"activity": e(["run", "cycle", "swim", "walk", "strength", "yoga"]), "duration_minutes": i(minimum=1),
          "distance_km": n(minimum=0), "calories": i(minimum=0), "heart_rate": obj({"avg": i(minimum=30, maximum=230),
          "max": i(minimum=30, maximum=230)}), "date": ISO_DATE}, ["activity", "duration_minutes"]),
    tool("log_meal", "Log a meal",
         {"meal": e(["breakfast", "lunch", "dinner", "snack"]),
          "foods": arr(obj({"name": s(), "grams": n(exclusiveMinimum=0), "calories": n(minimum=0)}, ["name"]),
                       minItems=1), "eaten_at": DATE_TIME}, ["meal", "foods"]),
    tool("book_appointment", "Book a doctor's appointment",
         {"patient_id": s(), "specialty": e(["general", "dermatology", "cardiology", "pediatrics", "dentistry"]),
          "preferred_date": ISO_DATE, "time_of_day": e(["morning", "afternoon", "evening"]),
          "reason": s(maxLength=500), "telehealth": b()}, ["patient_id", "specialty"]),
    # -- extraction-style tools
    tool("extract_contact_info", "Extract contact details from text",
         {"people": arr(obj({"name": s(), "email": nullable(s()), "phone": nullable(s()),
                             "organization": nullable(s())}, ["name", "email", "phone", "organization"], closed=True))},
         strict=True),
    tool("extract_invoice_fields", "Extract fields from an invoice",
         {"vendor": s(), "invoice_number": s(), "invoice_date": ISO_DATE, "total": n(),
          "currency": s(pattern="^[A-Z]{3}$"),
          "line_items": arr(obj({"description": s(), "amount": n()}, ["description", "amount"], closed=True))},
         strict=True),
    tool("record_sentiment", "Record the sentiment of a review",
         {"sentiment": e(["positive", "negative", "neutral"]), "score": n(minimum=-1, maximum=1),
          "aspects": arr(obj({"aspect": s(), "sentiment": e(["positive", "negative", "neutral"])},
                             ["aspect", "sentiment"], closed=True))}, strict=True),
    tool("tag_entities", "Named entities in a text",
         {"entities": arr(obj({"text": s(), "type": e(["person", "organization", "location", "date", "money"]),
                               "start": i(minimum=0), "end": i(minimum=0)}, ["text", "type"]))}, ["entities"]),
    tool("route_query", "Route a user query to a department",
         {"department": e(["sales", "support", "billing", "legal", "none"]), "confidence": n(minimum=0, maximum=1),
          "needs_human": b()}, strict=True),
    tool("rate_answer", "Grade an answer", {"score": e([1, 2, 3, 4, 5]), "explanation": s()}, strict=True),
    tool("plan_steps", "Plan the steps to solve a task",
         {"goal": s(), "steps": arr(obj({"id": i(minimum=1), "action": s(), "depends_on": arr(i(minimum=1)),
                                         "tool": nullable(s())}, ["id", "action", "depends_on", "tool"], closed=True),
                                    minItems=1, maxItems=12)}, strict=True),
    tool("fill_form", "Fill in a web form",
         {"url": s(format="uri"), "fields": {"type": "object", "additionalProperties": {"type": "string"}},
          "submit": b()}, ["url", "fields"]),
    tool("get_user_profile", "Fetch a user's profile", {"user_id": {"type": ["string", "integer"]},
         "fields": arr(e(["name", "email", "avatar", "bio", "followers", "created_at"]))}, ["user_id"]),
    tool("resolve_ip", "Resolve a host", {"hostname": s(format="hostname"), "record_type": e(["A", "AAAA", "MX", "TXT", "CNAME"])},
         ["hostname"]),
    tool("block_ip", "Block an IP address", {"ip": s(format="ipv4"), "duration_minutes": i(minimum=1),
         "reason": s()}, ["ip"]),
    tool("get_package_info", "Package metadata from a registry",
         {"ecosystem": e(["pypi", "npm", "cargo", "maven"]), "name": s(), "version": s(pattern=r"^\d+(\.\d+)*$")},
         ["ecosystem", "name"]),
    tool("no_arguments_tool", "Return the current server time", {}),
]
