"""Hand-written Pydantic v2 models of the kind applications hand to a constrained decoder.

`HAND_WRITTEN` lists (file stem, model class); `make_corpus.py` writes `model_json_schema()` of each.
They cover nested models (`$defs` + `$ref`), `Optional[...]` (anyOf with null), `Field` bounds and
patterns, `Literal` and `Enum`, bounded lists, dicts, formats (date-time, date, time, duration, uuid,
uri, ipv4, ipv6), unions, defaults, descriptions, and a few recursive models.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from decimal import Decimal
from enum import Enum, IntEnum
from ipaddress import IPv4Address, IPv6Address
from typing import Annotated, Literal, Optional, Union
from uuid import UUID

from pydantic import AnyUrl, BaseModel, ConfigDict, Field


class Currency(str, Enum):
    EUR = "EUR"
    USD = "USD"
    GBP = "GBP"
    JPY = "JPY"
    NOK = "NOK"


class Priority(IntEnum):
    LOW = 1
    MEDIUM = 2
    HIGH = 3


class Sentiment(str, Enum):
    POSITIVE = "positive"
    NEGATIVE = "negative"
    NEUTRAL = "neutral"
    MIXED = "mixed"


class Address(BaseModel):
    street: str = Field(min_length=1, max_length=120)
    city: str = Field(min_length=1, max_length=80)
    postal_code: str = Field(pattern=r"^[0-9A-Z -]{3,10}$")
    country: str = Field(min_length=2, max_length=2, description="ISO 3166-1 alpha-2 code")
    state: Optional[str] = None


class Person(BaseModel):
    """A person mentioned in a text."""

    name: str = Field(description="Full name as written")
    age: Optional[int] = Field(default=None, ge=0, le=150)
    email: Optional[str] = Field(default=None, pattern=r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$")
    address: Optional[Address] = None


class Money(BaseModel):
    amount: float = Field(ge=0)
    currency: Currency = Currency.EUR


class LineItem(BaseModel):
    sku: str = Field(pattern=r"^[A-Z]{3}-\d{4}$")
    description: str
    quantity: int = Field(ge=1, le=999)
    unit_price: Money


class Invoice(BaseModel):
    invoice_number: str = Field(pattern=r"^INV-\d{6}$")
    issued_on: date
    due_on: Optional[date] = None
    seller: Person
    buyer: Person
    items: list[LineItem] = Field(min_length=1, max_length=50)
    notes: Optional[str] = Field(default=None, max_length=500)
    paid: bool = False


class SentimentAnalysis(BaseModel):
    sentiment: Sentiment
    confidence: float = Field(ge=0.0, le=1.0)
    key_phrases: list[str] = Field(default_factory=list, max_length=10)


class NamedEntity(BaseModel):
    text: str
    label: Literal["PERSON", "ORG", "GPE", "DATE", "MONEY", "PRODUCT", "EVENT"]
    start: int = Field(ge=0)
    end: int = Field(ge=0)


class EntityExtraction(BaseModel):
    entities: list[NamedEntity]
    language: Literal["en", "de", "fr", "es", "nb"] = "en"


class CalendarEvent(BaseModel):
    title: str = Field(max_length=100)
    start: datetime
    end: datetime
    all_day: bool = False
    location: Optional[str] = None
    attendees: list[str] = Field(default_factory=list, max_length=20)
    reminder: Optional[timedelta] = Field(default=None, description="How long before the start")


class Meeting(BaseModel):
    id: UUID
    event: CalendarEvent
    organizer: Person
    recurring: Optional[Literal["daily", "weekly", "monthly"]] = None


class WeatherReport(BaseModel):
    city: str
    observed_at: datetime
    temperature_c: float = Field(ge=-90, le=60)
    humidity: int = Field(ge=0, le=100)
    wind_kph: float = Field(ge=0)
    conditions: Literal["clear", "clouds", "rain", "snow", "fog", "storm"]


class Forecast(BaseModel):
    city: str
    days: list[WeatherReport] = Field(min_length=1, max_length=14)


class Review(BaseModel):
    product_id: str
    rating: int = Field(ge=1, le=5)
    title: Optional[str] = Field(default=None, max_length=80)
    body: str = Field(min_length=10, max_length=2000)
    verified_purchase: bool
    helpful_votes: int = Field(default=0, ge=0)


class Product(BaseModel):
    id: int = Field(gt=0)
    name: str
    price: Money
    tags: list[str] = Field(default_factory=list, max_length=8)
    attributes: dict[str, str] = Field(default_factory=dict)
    in_stock: bool = True
    homepage: Optional[AnyUrl] = None


class Catalog(BaseModel):
    products: list[Product]
    updated_at: datetime


class TreeNode(BaseModel):
    """A recursive tree: every node may have children."""

    name: str
    value: Optional[int] = None
    children: list[TreeNode] = Field(default_factory=list)


class Comment(BaseModel):
    author: str
    text: str = Field(max_length=1000)
    posted_at: datetime
    replies: list[Comment] = Field(default_factory=list)


class LinkedListNode(BaseModel):
    value: int
    next: Optional[LinkedListNode] = None


class FileSystemEntry(BaseModel):
    name: str = Field(pattern=r"^[^/\x00]+$")
    kind: Literal["file", "directory", "symlink"]
    size: Optional[int] = Field(default=None, ge=0)
    entries: Optional[list[FileSystemEntry]] = None


class JSONExpr(BaseModel):
    """An arithmetic expression tree (recursion through a union)."""

    op: Literal["+", "-", "*", "/"]
    left: Union[float, JSONExpr]
    right: Union[float, JSONExpr]


class Server(BaseModel):
    hostname: str = Field(pattern=r"^[a-z0-9-]+(\.[a-z0-9-]+)*$")
    ipv4: IPv4Address
    ipv6: Optional[IPv6Address] = None
    port: int = Field(default=443, ge=1, le=65535)
    tls: bool = True


class Deployment(BaseModel):
    model_config = ConfigDict(extra="forbid")

    service: str = Field(min_length=1, max_length=63)
    replicas: int = Field(default=1, ge=0, le=100)
    image: str = Field(pattern=r"^[a-z0-9./-]+:[A-Za-z0-9._-]+$")
    env: dict[str, str] = Field(default_factory=dict)
    servers: list[Server] = Field(default_factory=list)
    strategy: Literal["rolling", "recreate", "blue-green"] = "rolling"


class Ticket(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str = Field(min_length=5, max_length=120)
    priority: Priority = Priority.MEDIUM
    labels: list[Literal["bug", "feature", "docs", "question"]] = Field(default_factory=list)
    assignee: Optional[str] = None
    estimate_hours: Optional[float] = Field(default=None, gt=0, le=200)
    due: Optional[date] = None


class Recipe(BaseModel):
    name: str
    servings: int = Field(ge=1, le=24)
    prep_time: timedelta
    ingredients: list[str] = Field(min_length=1)
    steps: list[str] = Field(min_length=1, max_length=30)
    vegetarian: bool
    cuisine: Optional[Literal["italian", "indian", "mexican", "japanese", "norwegian", "other"]] = None


class Movie(BaseModel):
    title: str
    year: int = Field(ge=1888, le=2100)
    director: str
    genres: list[Literal["drama", "comedy", "action", "horror", "documentary", "animation"]]
    rating: Optional[float] = Field(default=None, ge=0, le=10)
    cast: list[Person] = Field(default_factory=list, max_length=10)


class Classification(BaseModel):
    label: Literal["spam", "ham"]
    reasoning: str = Field(description="One or two sentences")


class Answer(BaseModel):
    answer: str
    citations: list[int] = Field(default_factory=list, description="Indices of the sources used")
    confidence: Literal["low", "medium", "high"]


class QueryPlan(BaseModel):
    steps: list[str] = Field(min_length=1, max_length=6)
    needs_search: bool
    final_answer_format: Literal["text", "table", "list", "json"] = "text"


class GeoPoint(BaseModel):
    lat: float = Field(ge=-90, le=90)
    lon: float = Field(ge=-180, le=180)


class Place(BaseModel):
    name: str
    location: GeoPoint
    category: Literal["restaurant", "museum", "park", "hotel", "shop"]
    opening_hours: Optional[dict[str, str]] = None
    opens_at: Optional[time] = None


class Itinerary(BaseModel):
    traveller: Person
    start_date: date
    places: list[Place] = Field(min_length=1, max_length=12)
    budget: Optional[Money] = None


class Transaction(BaseModel):
    id: UUID
    timestamp: datetime
    amount: Decimal = Field(max_digits=12, decimal_places=2)
    currency: Currency
    counterparty: Optional[str] = None
    category: Literal["groceries", "rent", "salary", "transport", "other"] = "other"


class BankStatement(BaseModel):
    account_iban: str = Field(pattern=r"^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$")
    period_start: date
    period_end: date
    transactions: list[Transaction]


class UserProfile(BaseModel):
    username: str = Field(min_length=3, max_length=20, pattern=r"^[a-z0-9_]+$")
    display_name: Optional[str] = Field(default=None, max_length=50)
    birthday: Optional[date] = None
    website: Optional[AnyUrl] = None
    interests: list[str] = Field(default_factory=list, max_length=5)
    settings: dict[str, bool] = Field(default_factory=dict)


class ChatMessage(BaseModel):
    role: Literal["system", "user", "assistant", "tool"]
    content: str
    name: Optional[str] = None


class Conversation(BaseModel):
    id: UUID
    messages: list[ChatMessage] = Field(min_length=1)
    created_at: datetime


class Cat(BaseModel):
    pet_type: Literal["cat"]
    meows: int = Field(ge=0)


class Dog(BaseModel):
    pet_type: Literal["dog"]
    barks: float = Field(ge=0)


class Lizard(BaseModel):
    pet_type: Literal["reptile", "lizard"]
    scales: bool


class Owner(BaseModel):
    name: str
    pet: Annotated[Union[Cat, Dog, Lizard], Field(discriminator="pet_type")]


class Shape(BaseModel):
    kind: Literal["circle", "square", "triangle"]
    size: float = Field(gt=0)


class Drawing(BaseModel):
    shapes: list[Union[Shape, str]] = Field(max_length=5)
    background: Optional[str] = Field(default=None, pattern=r"^#[0-9a-f]{6}$")


class SqlQuery(BaseModel):
    table: Literal["users", "orders", "products", "events"]
    columns: list[str] = Field(min_length=1)
    where: Optional[dict[str, Union[str, int, float, bool, None]]] = None
    order_by: Optional[str] = None
    limit: int = Field(default=100, ge=1, le=1000)


class Resume(BaseModel):
    class Job(BaseModel):
        company: str
        title: str
        start: date
        end: Optional[date] = None
        highlights: list[str] = Field(default_factory=list, max_length=5)

    class Education(BaseModel):
        school: str
        degree: Literal["BSc", "MSc", "PhD", "BA", "MA", "other"]
        year: int = Field(ge=1950, le=2030)

    person: Person
    summary: str = Field(max_length=600)
    jobs: list[Job]
    education: list[Education] = Field(default_factory=list)
    skills: list[str] = Field(default_factory=list, max_length=25)


class ApiError(BaseModel):
    code: int = Field(ge=400, le=599)
    message: str
    details: Optional[list[dict[str, str]]] = None


class PaginatedUsers(BaseModel):
    items: list[UserProfile]
    page: int = Field(ge=1)
    page_size: int = Field(ge=1, le=100)
    total: int = Field(ge=0)
    next_cursor: Optional[str] = None


class SensorReading(BaseModel):
    sensor_id: str = Field(pattern=r"^[a-f0-9]{8}$")
    measured_at: datetime
    values: list[float] = Field(min_length=1, max_length=16)
    unit: Literal["C", "F", "Pa", "%", "lux"]
    battery: Optional[int] = Field(default=None, ge=0, le=100)


class MathSolution(BaseModel):
    class Step(BaseModel):
        explanation: str
        output: str

    steps: list[Step]
    final_answer: str


class KnowledgeGraph(BaseModel):
    class Node(BaseModel):
        id: int
        label: str
        color: str = "blue"

    class Edge(BaseModel):
        source: int
        target: int
        label: str

    nodes: list[Node] = Field(default_factory=list)
    edges: list[Edge] = Field(default_factory=list)


class Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    key: Literal["alpha", "beta"]
    version: int = Field(ge=0, multiple_of=1)
    checksum: bytes


class FlexibleRecord(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: Union[int, str]
    value: Union[int, float, str, bool, None] = None


class Survey(BaseModel):
    respondent_age: int = Field(ge=18, le=99)
    satisfaction: Literal[1, 2, 3, 4, 5]
    would_recommend: bool
    comments: Optional[str] = Field(default=None, max_length=280)
    answers: dict[str, int] = Field(default_factory=dict)


class Measurement(BaseModel):
    value: float = Field(gt=-1e6, lt=1e6)
    uncertainty: float = Field(ge=0, le=1000, multiple_of=0.5)
    count: int = Field(multiple_of=5, ge=0, le=1000)


HAND_WRITTEN: list[tuple[str, type[BaseModel]]] = [
    ("address", Address),
    ("person", Person),
    ("money", Money),
    ("line_item", LineItem),
    ("invoice", Invoice),
    ("sentiment_analysis", SentimentAnalysis),
    ("entity_extraction", EntityExtraction),
    ("calendar_event", CalendarEvent),
    ("meeting", Meeting),
    ("weather_report", WeatherReport),
    ("forecast", Forecast),
    ("review", Review),
    ("product", Product),
    ("catalog", Catalog),
    ("tree_node", TreeNode),
    ("comment_thread", Comment),
    ("linked_list", LinkedListNode),
    ("file_system_entry", FileSystemEntry),
    ("expression_tree", JSONExpr),
    ("server", Server),
    ("deployment", Deployment),
    ("ticket", Ticket),
    ("recipe", Recipe),
    ("movie", Movie),
    ("classification", Classification),
    ("answer_with_citations", Answer),
    ("query_plan", QueryPlan),
    ("place", Place),
    ("itinerary", Itinerary),
    ("transaction", Transaction),
    ("bank_statement", BankStatement),
    ("user_profile", UserProfile),
    ("chat_message", ChatMessage),
    ("conversation", Conversation),
    ("pet_owner_discriminated", Owner),
    ("drawing", Drawing),
    ("sql_query", SqlQuery),
    ("resume", Resume),
    ("api_error", ApiError),
    ("paginated_users", PaginatedUsers),
    ("sensor_reading", SensorReading),
    ("math_solution", MathSolution),
    ("knowledge_graph", KnowledgeGraph),
    ("frozen_forbid_extra", Frozen),
    ("flexible_record", FlexibleRecord),
    ("survey", Survey),
    ("measurement", Measurement),
]
