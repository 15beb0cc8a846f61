"""Hand-written schemas in the styles people use for data files, events and APIs: `SCHEMAS` maps a
file stem to a schema. Written for this corpus in the manner of public schema collections: draft-04
headers with `id`, boolean `exclusiveMinimum`, `definitions`, self-describing event schemas (a
`self` block), content schemas with `patternProperties`, `dependencies`, `oneOf`, `allOf`, `not`,
`if`/`then`/`else`, `const`, type lists, `uniqueItems`, and plain small objects.
"""

from __future__ import annotations

from typing import Any

D4 = "http://json-schema.org/draft-04/schema#"
D6 = "http://json-schema.org/draft-06/schema#"
D7 = "http://json-schema.org/draft-07/schema#"
D2020 = "https://json-schema.org/draft/2020-12/schema"
SELF_DESCRIBING = "http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/1-0-0#"


def event(vendor: str, name: str, properties: dict, required: list[str] | None = None,
          description: str = "") -> dict[str, Any]:
    """A self-describing event schema: a `self` block naming vendor, name, format and version."""
    schema: dict[str, Any] = {
        "$schema": SELF_DESCRIBING,
        "description": description or f"Schema for a {name.replace('_', ' ')} event",
        "self": {"vendor": vendor, "name": name, "format": "jsonschema", "version": "1-0-0"},
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        schema["required"] = required
    return schema


STR = {"type": "string"}
NSTR = {"type": ["string", "null"]}
INT = {"type": "integer"}
NUM = {"type": "number"}
BOOL = {"type": "boolean"}

SCHEMAS: dict[str, Any] = {
    "plain_person": {"type": "object", "properties": {"firstName": STR, "lastName": STR,
                     "age": {"type": "integer", "minimum": 0}}, "required": ["firstName", "lastName"]},
    "plain_point": {"type": "object", "properties": {"x": NUM, "y": NUM}, "required": ["x", "y"],
                    "additionalProperties": False},
    "plain_string_list": {"type": "array", "items": STR},
    "plain_enum": {"type": "string", "enum": ["red", "amber", "green"]},
    "plain_untyped_properties": {"properties": {"name": STR, "count": INT}, "required": ["name"]},
    "plain_no_type_at_all": {"description": "Any value at all"},
    "draft4_product": {
        "$schema": D4, "id": "http://example.com/product.json", "title": "Product",
        "type": "object",
        "properties": {
            "id": {"description": "The unique identifier for a product", "type": "integer"},
            "name": {"type": "string"},
            "price": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "uniqueItems": True},
            "dimensions": {"type": "object", "properties": {"length": NUM, "width": NUM, "height": NUM},
                           "required": ["length", "width", "height"]},
        },
        "required": ["id", "name", "price"],
    },
    "draft4_bounded_percent": {"$schema": D4, "type": "number", "minimum": 0, "maximum": 100,
                               "exclusiveMaximum": True},
    "draft4_address_with_definitions": {
        "$schema": D4, "id": "http://example.com/address.json",
        "definitions": {"street": {"type": "string", "maxLength": 100},
                        "postcode": {"type": "string", "pattern": "^[0-9]{4,5}$"}},
        "type": "object",
        "properties": {"street": {"$ref": "#/definitions/street"}, "postcode": {"$ref": "#/definitions/postcode"},
                       "city": STR, "country": {"enum": ["NO", "SE", "DK", "DE", "FR"]}},
        "required": ["street", "city"],
    },
    "draft4_fstab": {
        "$schema": D4, "type": "object", "required": ["/"],
        "properties": {"/": {"$ref": "#/definitions/mntent"}},
        "patternProperties": {"^(/[^/]+)+$": {"$ref": "#/definitions/mntent"}},
        "additionalProperties": False,
        "definitions": {"mntent": {
            "type": "object", "properties": {
                "storage": {"type": "object", "oneOf": [{"$ref": "#/definitions/diskDevice"}, {"$ref": "#/definitions/nfs"}]},
                "fstype": {"enum": ["ext3", "ext4", "btrfs"]},
                "options": {"type": "array", "minItems": 1, "items": {"type": "string"}, "uniqueItems": True},
                "readonly": {"type": "boolean"}},
            "required": ["storage"]},
            "diskDevice": {"properties": {"type": {"enum": ["disk"]},
                           "device": {"type": "string", "pattern": "^/dev/[^/]+(/[^/]+)*$"}},
                           "required": ["type", "device"], "additionalProperties": False},
            "nfs": {"properties": {"type": {"enum": ["nfs"]}, "remotePath": {"type": "string", "pattern": "^(/[^/]+)+$"},
                    "server": {"type": "string", "oneOf": [{"format": "hostname"}, {"format": "ipv4"}, {"format": "ipv6"}]}},
                    "required": ["type", "server", "remotePath"], "additionalProperties": False}},
    },
    "draft6_config": {
        "$schema": D6, "$id": "http://example.com/config.json", "type": "object",
        "properties": {"name": {"type": "string", "minLength": 1}, "version": {"const": 2},
                       "port": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 65536},
                       "mode": {"enum": ["dev", "prod", None]},
                       "features": {"type": "object", "propertyNames": {"pattern": "^[a-z_]+$"},
                                    "additionalProperties": {"type": "boolean"}}},
        "required": ["name", "version"],
    },
    "draft7_conditional_address": {
        "$schema": D7, "type": "object",
        "properties": {"street_address": STR, "country": {"enum": ["United States of America", "Canada", "Netherlands"]},
                       "postal_code": STR},
        "if": {"properties": {"country": {"const": "United States of America"}}},
        "then": {"properties": {"postal_code": {"pattern": "[0-9]{5}(-[0-9]{4})?"}}},
        "else": {"properties": {"postal_code": {"pattern": "[A-Z][0-9][A-Z] [0-9][A-Z][0-9]"}}},
    },
    "draft7_dependencies": {
        "$schema": D7, "type": "object",
        "properties": {"name": STR, "credit_card": {"type": "number"}, "billing_address": STR},
        "required": ["name"], "dependencies": {"credit_card": ["billing_address"]},
    },
    "draft7_not_empty": {"$schema": D7, "type": "string", "not": {"const": ""}},
    "draft7_all_of_base": {
        "$schema": D7,
        "definitions": {"base": {"type": "object", "properties": {"id": {"type": "string", "format": "uuid"},
                                                                   "created": {"type": "string", "format": "date-time"}},
                                 "required": ["id"]}},
        "allOf": [{"$ref": "#/definitions/base"},
                  {"properties": {"kind": {"const": "note"}, "text": {"type": "string", "maxLength": 1000}},
                   "required": ["kind", "text"]}],
    },
    "draft7_tuple_items": {"$schema": D7, "type": "array",
                           "items": [{"type": "number"}, {"type": "string"}, {"enum": ["Street", "Avenue", "Boulevard"]}],
                           "additionalItems": False},
    "draft7_contains": {"$schema": D7, "type": "array", "items": {"type": "integer"}, "contains": {"minimum": 5},
                        "maxItems": 8},
    "draft2020_prefix_items": {"$schema": D2020, "type": "array",
                               "prefixItems": [{"type": "string", "format": "date"}, {"type": "number"}],
                               "items": False, "minItems": 2},
    "draft2020_anchor": {"$schema": D2020, "$id": "https://example.com/tree",
                         "$defs": {"node": {"$anchor": "node", "type": "object",
                                            "properties": {"value": NUM, "children": {"type": "array", "items": {"$ref": "#node"}}},
                                            "required": ["value"]}},
                         "$ref": "#/$defs/node"},
    "draft2020_dependent": {"$schema": D2020, "type": "object",
                            "properties": {"name": STR, "credit_card": NUM, "billing_address": STR},
                            "dependentRequired": {"credit_card": ["billing_address"]},
                            "dependentSchemas": {"billing_address": {"properties": {"country": STR}}}},
    "draft2020_min_max_contains": {"$schema": D2020, "type": "array", "items": {"enum": ["a", "b", "c"]},
                                   "contains": {"const": "a"}, "minContains": 1, "maxContains": 2},
    "geojson_point": {
        "$schema": D7, "title": "GeoJSON Point", "type": "object", "required": ["type", "coordinates"],
        "properties": {"type": {"type": "string", "enum": ["Point"]},
                       "coordinates": {"type": "array", "minItems": 2, "items": {"type": "number"}},
                       "bbox": {"type": "array", "minItems": 4, "items": {"type": "number"}}},
    },
    "geojson_feature": {
        "$schema": D7, "title": "GeoJSON Feature", "type": "object", "required": ["type", "properties", "geometry"],
        "properties": {"type": {"type": "string", "enum": ["Feature"]},
                       "id": {"oneOf": [{"type": "number"}, {"type": "string"}]},
                       "properties": {"oneOf": [{"type": "null"}, {"type": "object"}]},
                       "geometry": {"oneOf": [{"type": "null"}, {"$ref": "#/definitions/point"}, {"$ref": "#/definitions/lineString"}]}},
        "definitions": {"position": {"type": "array", "minItems": 2, "maxItems": 3, "items": {"type": "number"}},
                        "point": {"type": "object", "required": ["type", "coordinates"],
                                  "properties": {"type": {"enum": ["Point"]}, "coordinates": {"$ref": "#/definitions/position"}}},
                        "lineString": {"type": "object", "required": ["type", "coordinates"],
                                       "properties": {"type": {"enum": ["LineString"]},
                                                      "coordinates": {"type": "array", "minItems": 2, "items": {"$ref": "#/definitions/position"}}}}},
    },
    "package_manifest": {
        "$schema": D7, "title": "A package manifest", "type": "object", "required": ["name", "version"],
        "properties": {
            "name": {"type": "string", "maxLength": 214, "minLength": 1, "pattern": "^(?:@[a-z0-9-*~][a-z0-9-*._~]*/)?[a-z0-9-~][a-z0-9-._~]*$"},
            "version": {"type": "string", "description": "Semantic version"},
            "description": STR, "keywords": {"type": "array", "items": STR},
            "homepage": {"type": "string", "format": "uri"},
            "license": {"anyOf": [{"type": "string"}, {"type": "object", "properties": {"type": STR, "url": {"type": "string", "format": "uri"}}}]},
            "author": {"$ref": "#/definitions/person"},
            "contributors": {"type": "array", "items": {"$ref": "#/definitions/person"}},
            "scripts": {"type": "object", "additionalProperties": {"type": "string"}},
            "dependencies": {"$ref": "#/definitions/dependencyMap"},
            "devDependencies": {"$ref": "#/definitions/dependencyMap"},
            "private": {"type": "boolean"},
            "engines": {"type": "object", "additionalProperties": {"type": "string"}}},
        "definitions": {"person": {"description": "A person who has been involved in creating or maintaining this package.",
                                   "type": ["object", "string"], "required": ["name"],
                                   "properties": {"name": STR, "url": {"type": "string", "format": "uri"}, "email": {"type": "string", "format": "email"}}},
                        "dependencyMap": {"type": "object", "additionalProperties": {"type": "string"}}},
    },
    "news_article": {
        "$schema": D4, "id": "https://example.com/content/article.json", "title": "Article",
        "description": "A story in a content API", "type": "object",
        "properties": {
            "type": {"type": "string", "enum": ["story"]},
            "_id": {"type": "string"},
            "version": {"type": "string", "enum": ["0.10.9"]},
            "canonical_url": {"type": "string"},
            "headlines": {"type": "object", "properties": {"basic": STR, "web": STR, "print": STR},
                          "patternProperties": {"^([a-zA-Z0-9_])*$": {"type": "string"}}},
            "credits": {"type": "object", "properties": {"by": {"type": "array", "items": {"type": "object", "properties": {"type": {"enum": ["author"]}, "name": STR}}}}},
            "taxonomy": {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "object", "properties": {"text": STR, "slug": STR}, "required": ["text"]}}}},
            "display_date": {"type": "string", "format": "date-time"},
            "word_count": {"type": "integer", "minimum": 0},
            "language": {"type": "string"},
            "additional_properties": {"type": "object"}},
        "required": ["type", "version"],
        "additionalProperties": False,
    },
    "event_link_click": event("com.example", "link_click", {
        "elementId": {"type": "string", "maxLength": 255}, "elementClasses": {"type": "array", "items": {"type": "string", "maxLength": 255}},
        "elementTarget": {"type": "string", "maxLength": 255}, "targetUrl": {"type": "string", "minLength": 1, "maxLength": 4096}},
        ["targetUrl"]),
    "event_add_to_cart": event("com.example", "add_to_cart", {
        "sku": {"type": "string", "maxLength": 255}, "name": {"type": ["string", "null"], "maxLength": 255},
        "category": {"type": ["string", "null"], "maxLength": 255},
        "unitPrice": {"type": ["number", "null"], "minimum": 0, "maximum": 9999999},
        "quantity": {"type": "integer", "minimum": 0, "maximum": 9999999},
        "currency": {"type": ["string", "null"], "minLength": 3, "maxLength": 3}}, ["sku", "quantity"]),
    "event_page_ping": event("com.example", "page_ping", {
        "minXOffset": {"type": "integer", "minimum": 0, "maximum": 2147483647},
        "maxXOffset": {"type": "integer", "minimum": 0, "maximum": 2147483647},
        "minYOffset": {"type": "integer", "minimum": 0, "maximum": 2147483647},
        "maxYOffset": {"type": "integer", "minimum": 0, "maximum": 2147483647}}),
    "event_screen_view": event("com.example.mobile", "screen_view", {
        "name": {"type": "string", "maxLength": 255}, "id": {"type": "string", "format": "uuid"},
        "type": {"type": ["string", "null"], "maxLength": 64},
        "previousName": {"type": ["string", "null"], "maxLength": 255},
        "previousId": {"type": ["string", "null"], "format": "uuid"},
        "transitionType": {"type": ["string", "null"], "enum": ["push", "pop", "modal", None]}}, ["name", "id"]),
    "event_form_submit": event("com.example", "submit_form", {
        "formId": {"type": "string"}, "formClasses": {"type": "array", "items": STR},
        "elements": {"type": "array", "items": {"type": "object", "properties": {
            "name": STR, "value": NSTR, "nodeName": {"enum": ["INPUT", "TEXTAREA", "SELECT"]},
            "type": {"type": ["string", "null"], "enum": ["button", "checkbox", "color", "date", "email", "hidden", "number", "password", "text", None]}},
            "required": ["name", "value", "nodeName"], "additionalProperties": False}}}, ["formId"]),
    "event_search": event("com.example", "site_search", {
        "terms": {"type": "array", "items": STR, "minItems": 1}, "filters": {"type": "object", "patternProperties": {".*": {"type": ["string", "boolean"]}}},
        "totalResults": {"type": "integer", "minimum": 0, "maximum": 2147483647},
        "pageResults": {"type": "integer", "minimum": 0, "maximum": 2147483647}}, ["terms"]),
    "event_consent": event("com.example", "consent_granted", {
        "basisForProcessing": {"type": "string", "enum": ["consent", "contract", "legal_obligation", "vital_interests", "public_task", "legitimate_interests"]},
        "consentUrl": {"type": "string", "format": "uri", "maxLength": 4096},
        "consentVersion": {"type": "string", "maxLength": 16},
        "consentScopes": {"type": "array", "items": {"type": "string", "maxLength": 64}},
        "gdprApplies": {"type": ["boolean", "null"]}, "expiry": {"type": ["string", "null"], "format": "date-time"}},
        ["basisForProcessing", "consentScopes"]),
    "event_timing": event("com.example", "timing", {
        "category": {"type": "string", "maxLength": 255}, "variable": {"type": "string", "maxLength": 255},
        "timing": {"type": "integer", "minimum": -2147483648, "maximum": 2147483647},
        "label": {"type": ["string", "null"], "maxLength": 255}}, ["category", "variable", "timing"]),
    "sensor_batch": {
        "$schema": D7, "type": "object", "required": ["device", "readings"],
        "properties": {"device": {"type": "string", "pattern": "^[A-F0-9]{12}$"},
                       "firmware": {"type": "string", "pattern": "^\\d+\\.\\d+\\.\\d+$"},
                       "readings": {"type": "array", "minItems": 1, "maxItems": 100, "items": {
                           "type": "object", "required": ["t", "v"], "additionalProperties": False,
                           "properties": {"t": {"type": "integer", "minimum": 0}, "v": {"type": "number"},
                                          "q": {"type": "integer", "enum": [0, 1, 2]}}}}},
    },
    "chat_completion_response_format": {
        "type": "object", "additionalProperties": False, "required": ["reasoning", "answer"],
        "properties": {"reasoning": {"type": "array", "items": {"type": "string"}},
                       "answer": {"type": "string"},
                       "confidence": {"type": "number", "minimum": 0, "maximum": 1}},
    },
    "llm_judge": {
        "type": "object", "additionalProperties": False, "required": ["verdict", "scores"],
        "properties": {"verdict": {"enum": ["A", "B", "tie"]},
                       "scores": {"type": "object", "additionalProperties": False, "required": ["helpfulness", "harmlessness"],
                                  "properties": {"helpfulness": {"type": "integer", "minimum": 1, "maximum": 10},
                                                 "harmlessness": {"type": "integer", "minimum": 1, "maximum": 10}}}},
    },
    "mixed_enum": {"enum": [1, "one", 1.5, True, None, [1, 2], {"a": 1}]},
    "type_list_scalar": {"type": ["string", "integer", "boolean", "null"]},
    "string_formats": {"type": "object", "properties": {
        "date": {"type": "string", "format": "date"}, "time": {"type": "string", "format": "time"},
        "when": {"type": "string", "format": "date-time"}, "duration": {"type": "string", "format": "duration"},
        "email": {"type": "string", "format": "email"}, "host": {"type": "string", "format": "hostname"},
        "ipv4": {"type": "string", "format": "ipv4"}, "ipv6": {"type": "string", "format": "ipv6"},
        "uuid": {"type": "string", "format": "uuid"}, "uri": {"type": "string", "format": "uri"},
        "ref": {"type": "string", "format": "uri-reference"}}},
    "numeric_bounds": {"type": "object", "properties": {
        "percent": {"type": "integer", "minimum": 0, "maximum": 100},
        "probability": {"type": "number", "minimum": 0, "maximum": 1},
        "positive": {"type": "number", "exclusiveMinimum": 0},
        "temperature": {"type": "number", "minimum": -273.15},
        "even": {"type": "integer", "multipleOf": 2, "minimum": 0, "maximum": 1000},
        "year": {"type": "integer", "minimum": 1900, "maximum": 2099}}},
    "open_object_any_values": {"type": "object", "properties": {"id": STR}, "required": ["id"]},
    "array_of_anything": {"type": "array", "maxItems": 3},
    "recursive_json_value": {
        "$schema": D7, "definitions": {"json": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"},
                                                         {"type": "array", "items": {"$ref": "#/definitions/json"}},
                                                         {"type": "object", "additionalProperties": {"$ref": "#/definitions/json"}}]}},
        "$ref": "#/definitions/json",
    },
}
