"""The main job: a real language model asked for tool calls, unconstrained and constrained side by side.

`run` loads a GGUF model through llama.cpp (by default SmolLM2-135M-Instruct, see
`brzozowski.runtime.llama`), asks it with chat prompts for calls of a few embedded tools (`TOOLS`), or for a
document of your own schema or regex, and generates each request twice with the same seed: once
left alone, once through a `brzozowski.runtime.llama.ConstraintLogitsProcessor` over the schema's
`brzozowski.json.compiler.compile_json_schema` automaton (``$defs``/``$ref``, formats, bounds),
written with `SEPARATORS` ``(", ", ": ")`` as ``json.dumps`` writes, the way the prompts' examples
are written (or over the regex's automaton). For each it prints the
document, the ``jsonschema`` verdict (Draft 2020-12 with format checking; for a regex,
``re.fullmatch``), the number of tokens, tokens per second, and for the constrained run what the
mask cost per token against the model's own time per token.

Invariant: every constrained document that finished (EOS) validates; `run` returns 1 if one does
not (a bug), 0 otherwise. Unconstrained documents are judged, never required to pass: a 135M model
left alone writes almost-JSON (a code fence, prose after the object, a missing argument).

The model's time per token is the interval between two calls of the processor minus the
processor's own time: llama.cpp's forward pass plus its sampling chain (a few percent of it).

>>> sorted(TOOLS)
['book_table', 'create_event', 'get_weather', 'search_flights']
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, TextIO

import numpy as np

from .errors import ArgumentError
from .automata.lazy import LazyDFA
from .json.compiler import compile_json_schema

__all__ = ["SEPARATORS", "TOOLS", "Generation", "Task", "Tool", "generate", "run", "signature", "tasks_for", "tool_call_schema"]

DEFAULT_MAX_TOKENS = 128
DEFAULT_TEMPERATURE = 0.7


def tool_call_schema(name: str, parameters: Mapping[str, Any]) -> dict:
    """The schema of a call of tool `name`: ``{"name": name, "arguments": <parameters>}``.

    The parameters' ``$defs`` move to the root, so that their ``"#/$defs/..."`` references (written
    relative to the parameters, as tool definitions are) point at the same definitions.

    >>> tool_call_schema("f", {"$defs": {"N": {"type": "integer"}}, "properties": {"n": {"$ref": "#/$defs/N"}}})
    {'type': 'object', 'properties': {'name': {'const': 'f'}, 'arguments': {'properties': {'n': {'$ref': '#/$defs/N'}}}}, 'required': ['name', 'arguments'], 'additionalProperties': False, '$defs': {'N': {'type': 'integer'}}}
    """
    arguments = {key: value for key, value in parameters.items() if key != "$defs"}
    schema = {
        "type": "object",
        "properties": {"name": {"const": name}, "arguments": arguments},
        "required": ["name", "arguments"],
        "additionalProperties": False,
    }
    if "$defs" in parameters:
        schema["$defs"] = dict(parameters["$defs"])
    return schema


@dataclass(frozen=True)
class Tool:
    """A tool an agent may call: what it does, its parameters' schema, an example of its arguments
    (shown to the model in the prompt) and requests a user might make."""

    description: str
    parameters: dict
    example_request: str
    example: dict
    requests: list[str]


#: The embedded tools, written as people write tool schemas: shared definitions (``$defs`` and
#: ``$ref``), a ``format``, a ``pattern``, numeric bounds, enums, booleans, arrays, nullable values.
#: Free strings have a ``maxLength`` and integers a ``maximum``: a 135M model asked for an unbounded
#: value may write "12000000..." or a never-ending name, which an unbounded schema allows; the bounds
#: make the documents end within the token cap. ``get_weather`` alone stays in the specification's
#: strict subset (`brzozowski.json.strict.json_schema_to_regex`): notebook 5 compiles it that way and
#: checks its masks against the golden oracle.
TOOLS: dict[str, Tool] = {
    "get_weather": Tool(
        "Get the weather forecast for a city.",
        {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer"},
                "unit": {"enum": ["celsius", "fahrenheit"]},
                "hourly": {"type": "boolean"},
            },
            "required": ["city", "days"],
            "additionalProperties": False,
        },
        "Weather in Madrid for 2 days, in celsius.",
        {"city": "Madrid", "days": 2, "unit": "celsius"},
        ["What will the weather be like in Oslo over the next 3 days?",
         "Forecast for Lima tomorrow, in fahrenheit please.",
         "Is it going to rain in Tokyo this week? Hourly if you can."],
    ),
    "search_flights": Tool(
        "Search flights between two airports.",
        {
            "$defs": {"Place": {"type": "string", "minLength": 1, "maxLength": 30}},
            "type": "object",
            "properties": {
                "origin": {"$ref": "#/$defs/Place"},
                "destination": {"$ref": "#/$defs/Place"},
                "passengers": {"type": "integer", "minimum": 1, "maximum": 9},
                "cabin": {"enum": ["economy", "business", "first"]},
                "direct_only": {"type": ["boolean", "null"]},
            },
            "required": ["origin", "destination", "passengers"],
            "additionalProperties": False,
        },
        "One economy seat from Vienna to Oslo.",
        {"origin": "Vienna", "destination": "Oslo", "passengers": 1, "cabin": "economy"},
        ["Find me a flight from Paris to Berlin for 2 people.",
         "I need a business class ticket from New York to London.",
         "Flights Madrid to Rome for 4 passengers, direct only."],
    ),
    "create_event": Tool(
        "Add an event to the user's calendar.",
        {
            "$defs": {"Person": {"type": "string", "minLength": 1, "maxLength": 20}},
            "type": "object",
            "properties": {
                "title": {"type": "string", "minLength": 1, "maxLength": 40},
                "date": {"type": "string", "format": "date"},
                "attendees": {"type": "array", "items": {"$ref": "#/$defs/Person"}, "minItems": 1, "maxItems": 4},
                "all_day": {"type": "boolean"},
            },
            "required": ["title", "date", "attendees"],
            "additionalProperties": False,
        },
        "Dentist with Sam on 2025-03-04.",
        {"title": "Dentist", "date": "2025-03-04", "attendees": ["Sam"]},
        ["Put a team lunch with Ana and Bo on 2025-06-12 in my calendar.",
         "Schedule the project review on 2025-07-01 with Carla.",
         "Block 2025-12-24 all day for the family dinner with Dan and Eve."],
    ),
    "book_table": Tool(
        "Book a table at a restaurant.",
        {
            "type": "object",
            "properties": {
                "restaurant": {"type": "string", "minLength": 1, "maxLength": 30},
                "people": {"type": "integer", "minimum": 1, "maximum": 20},
                "time": {"type": "string", "description": "HH:MM", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$"},
                "outdoor": {"type": "boolean"},
                "high_chair": {"type": ["boolean", "null"]},
            },
            "required": ["restaurant", "people", "time"],
            "additionalProperties": False,
        },
        "Da Paolo, 3 people, 13:00.",
        {"restaurant": "Da Paolo", "people": 3, "time": "13:00"},
        ["Book a table for 4 at Chez Marie at 19:30.",
         "Table for two at Sakura tonight at 20:00, outside if possible.",
         "Reserve Luigi's for 6 people at 12:15, we need a high chair."],
    ),
}


SEPARATORS = (", ", ": ")
"""How constrained documents separate items and keys: what ``json.dumps`` writes by default, and
what the prompts' examples show the model (``{"city": "Oslo", "days": 3}``)."""


@dataclass(frozen=True)
class Task:
    """One request: what to ask (chat messages) and what the answer must be (a schema, written with
    `separators`, or a regex)."""

    title: str
    messages: list[dict[str, str]]
    schema: dict | None = None
    regex: str | None = None
    separators: tuple[str, str] = SEPARATORS

    @cached_property
    def automaton(self) -> LazyDFA:
        """The lazy DFA of the answers: the schema's (`compile_json_schema` with `separators`) or the regex's."""
        if self.regex is not None:
            return LazyDFA(self.regex)
        return compile_json_schema(self.schema, separators=self.separators)


@dataclass
class Generation:
    """One generation: the text, its verdict, and its timings (``overheads`` only when constrained:
    the processor's time per token divided by the model's time per token)."""

    text: str
    tokens: int
    seconds: float
    finished: bool
    valid: bool
    verdict: str
    overheads: list[float]
    model_seconds: list[float]
    setup_seconds: float = 0.0


SYSTEM = (
    "You call tools. Tool: {signature}: {description}\n"
    'Reply with only the call, as JSON. Example: "{example_request}" -> {example}'
)
"""The system prompt: short, since every token of it is a forward pass before the first answer token
(a JSON-schema dump of the parameters tripled the prompt and its time)."""


def signature(name: str, parameters: Mapping[str, Any]) -> str:
    """A tool's parameters in one line, for the prompt: ``name(a: string, b?: "x" | "y")``, with
    ``$ref`` to the parameters' ``$defs`` followed, a string's ``format`` (or ``description``) and an
    integer's bounds.

    >>> signature("f", {"$defs": {"D": {"type": "string", "format": "date"}},
    ...                 "properties": {"a": {"$ref": "#/$defs/D"}, "b": {"enum": ["x", 1]},
    ...                            "c": {"type": "integer", "minimum": 1, "maximum": 9}}, "required": ["a"]})
    'f(a: date, b?: "x" | 1, c?: integer 1..9)'
    """
    definitions = parameters.get("$defs", {})

    def kind(schema: Mapping[str, Any]) -> str:
        if "$ref" in schema:
            return kind(definitions[schema["$ref"].removeprefix("#/$defs/")])
        if "enum" in schema:
            return " | ".join(json.dumps(v) for v in schema["enum"])
        types = schema.get("type", "any")
        types = [types] if isinstance(types, str) else list(types)
        if types == ["array"]:
            return f"array of {kind(schema.get('items', {}))}"
        if types == ["string"] and ("format" in schema or "description" in schema):
            return schema.get("format", schema.get("description"))
        if types == ["integer"] and "minimum" in schema and "maximum" in schema:
            return f"integer {schema['minimum']}..{schema['maximum']}"
        return " | ".join(types)

    required = set(parameters.get("required", ()))
    arguments = ", ".join(f"{key}{'' if key in required else '?'}: {kind(value)}"
                          for key, value in parameters.get("properties", {}).items())
    return f"{name}({arguments})"


def tasks_for(
    n: int,
    schema: Mapping[str, Any] | None = None,
    regex: str | None = None,
    prompt: str | None = None,
    separators: tuple[str, str] = SEPARATORS,
) -> list[Task]:
    """`n` requests: the embedded tools in turn (their requests in turn), or your schema/regex; the
    prompts' JSON is written with `separators`, as the constrained answers are."""
    if schema is not None and regex is not None:
        raise ArgumentError("give a schema or a regex, not both")
    if schema is not None or regex is not None:
        if prompt is None:
            what = f"this JSON schema: {json.dumps(schema, separators=separators)}" if schema is not None else f"the regex {regex}"
            prompt = f"Reply with only a document that matches {what}"
        title = "your schema" if schema is not None else "your regex"
        messages = [{"role": "user", "content": prompt}]
        return [Task(title, messages, dict(schema) if schema is not None else None, regex, tuple(separators))] * n
    tasks = []
    names = list(TOOLS)
    for i in range(n):
        name = names[i % len(names)]
        tool = TOOLS[name]
        request = prompt if prompt is not None else tool.requests[i // len(names) % len(tool.requests)]
        example = json.dumps({"name": name, "arguments": tool.example}, separators=separators)
        system = SYSTEM.format(signature=signature(name, tool.parameters), description=tool.description,
                               example_request=tool.example_request, example=example)
        messages = [{"role": "system", "content": system}, {"role": "user", "content": request}]
        tasks.append(Task(f"{name}: {request}", messages, tool_call_schema(name, tool.parameters),
                          separators=tuple(separators)))
    return tasks


def _judge(task: Task, text: str) -> tuple[bool, str]:
    if task.regex is not None:
        ok = re.fullmatch(task.regex.encode(), text.encode()) is not None
        return ok, "matches the regex" if ok else "does not match the regex"
    import jsonschema

    try:
        value = json.loads(text)
    except ValueError as e:
        return False, f"not JSON ({e})"
    validator = jsonschema.Draft202012Validator(
        task.schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if error is not None:
        where = "/" + "/".join(map(str, error.absolute_path))
        return False, f"INVALID at {where}: {error.message}"
    return True, "valid (jsonschema)"


def generate(
    llm: Any,
    task: Task,
    constrained: bool,
    seed: int,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    temperature: float = DEFAULT_TEMPERATURE,
    precompute: bool = True,
    clock: Callable[[], float] = time.perf_counter,
) -> Generation:
    """Run `task` once on `llm` (constrained or not), judge the answer, time it.

    Constrained, the token index is shared between generations of the same automaton; with
    `precompute` it is built over the canonical DFA and, up to `brzozowski.runtime.llama.PRECOMPUTE_MAX_STATES`
    states, every state's mask is computed before the first token (``setup_seconds``, zero when the
    index was already there); otherwise masks are computed on first use, on the token path. `clock` times the
    processor (wall time by default; ``time.thread_time`` for CPU time).
    """
    from llama_cpp import LogitsProcessorList

    from .runtime.llama import ConstraintLogitsProcessor, shared_index

    extra: dict[str, Any] = {}
    processor = None
    setup = 0.0
    if constrained:
        start = time.perf_counter()
        processor = ConstraintLogitsProcessor(shared_index(llm, task.automaton, precompute))
        setup = time.perf_counter() - start
        processor.clock = clock
        extra["logits_processor"] = LogitsProcessorList([processor])
    start = time.perf_counter()
    out = llm.create_chat_completion(
        task.messages, temperature=temperature, max_tokens=max_tokens, seed=seed, **extra
    )
    seconds = time.perf_counter() - start
    choice = out["choices"][0]
    text = choice["message"]["content"] or ""
    finished = choice["finish_reason"] == "stop"
    valid, verdict = _judge(task, text)
    if not finished:
        verdict = f"unfinished after {max_tokens} tokens; {verdict}"
        valid = False
    overheads: list[float] = []
    model_seconds: list[float] = []
    if processor is not None:
        starts, costs = processor.call_starts, processor.timings
        for i in range(1, len(starts)):
            model = starts[i] - starts[i - 1] - costs[i - 1]
            model_seconds.append(model)
            overheads.append(costs[i] / model)
    return Generation(text, out["usage"]["completion_tokens"], seconds, finished, valid, verdict,
                      overheads, model_seconds, setup)


def _percentile(xs: list[float], q: float) -> float:
    return float(np.percentile(xs, q)) if xs else float("nan")


def run(
    schema: Mapping[str, Any] | None = None,
    regex: str | None = None,
    prompt: str | None = None,
    model: str | None = None,
    n: int = 4,
    seed: int = 0,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    temperature: float = DEFAULT_TEMPERATURE,
    separators: tuple[str, str] = SEPARATORS,
    out: TextIO | None = None,
) -> int:
    """The demo (``brzozowski demo``): print every generation side by side; 1 if a constrained
    document that finished does not validate (a bug), else 0. Schemas are compiled by
    `compile_json_schema` with `separators`."""
    from .runtime.llama import default_model_path, load_model

    out = out or sys.stdout
    tasks = tasks_for(n, schema=schema, regex=regex, prompt=prompt, separators=separators)
    for task in tasks:  # a refused schema or a bad regex fails here, before the model loads
        task.automaton  # noqa: B018 (compiles and caches it)
    path = model if model is not None else default_model_path()
    start = time.perf_counter()
    llm = load_model(path, seed=seed)
    print(f"brzozowski demo: {n} requests to a real language model, unconstrained and constrained", file=out)
    print(f"  model: {path} (loaded in {time.perf_counter() - start:.1f} s), temperature {temperature}, "
          f"seeds {seed}..{seed + n - 1}, at most {max_tokens} tokens each", file=out)
    if regex is None:
        print(f"  constraint: compile_json_schema(schema, separators={tuple(separators)!r}), written as "
              f"{'json.dumps writes by default' if tuple(separators) == SEPARATORS else 'given'}; "
              f"valid = jsonschema Draft 2020-12 with its format checker", file=out)
    free_valid = bound_valid = bound_finished = 0
    overheads: list[float] = []
    model_seconds: list[float] = []
    bugs = []
    for i, task in enumerate(tasks):
        print(f"\n[{i + 1}] {task.title}", file=out)
        for constrained in (False, True):
            g = generate(llm, task, constrained, seed + i, max_tokens, temperature)
            label = "constrained  " if constrained else "unconstrained"
            rate = g.tokens / g.seconds if g.seconds > 0 else float("nan")
            line = f"  {label} {g.tokens:>4} tokens {rate:>6.1f} tok/s  {g.verdict}"
            if constrained:
                line += (f"; mask {100 * _percentile(g.overheads, 50):.2f}% of the model's time per "
                         f"token (median)")
                if g.setup_seconds > 0.01:
                    line += f"; index ready in {g.setup_seconds:.2f} s"
                bound_finished += g.finished
                bound_valid += g.valid
                overheads += g.overheads
                model_seconds += g.model_seconds
                if g.finished and not g.valid:
                    bugs.append(i + 1)
            else:
                free_valid += g.valid
            print(line, file=out)
            print("      " + g.text.replace("\n", "\n      "), file=out)
    print(f"\nunconstrained: {free_valid}/{n} valid; constrained: {bound_valid}/{n} valid, "
          f"{bound_finished}/{n} finished within {max_tokens} tokens", file=out)
    if overheads:
        print(f"mask overhead per token (advance + mask + apply, against the model's "
              f"{1e3 * _percentile(model_seconds, 50):.1f} ms per token): median "
              f"{100 * _percentile(overheads, 50):.2f}%, p99 {100 * _percentile(overheads, 99):.2f}% "
              f"over {len(overheads)} tokens", file=out)
    if bugs:
        print(f"error: constrained documents {bugs} finished but do not validate: this is a bug", file=sys.stderr)
        return 1
    return 0
