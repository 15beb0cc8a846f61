"""The JSON Schema ``format`` values brzozowski writes, as anchored ECMA patterns over the decoded string.

Each format is a pattern compiled by `brzozowski.json.ecma_regex` (so every spelling of each character,
raw or escaped, is allowed). Invariant: every string a format's language holds passes
``jsonschema.FormatChecker()`` (Draft 2020-12, with the ``format-nongpl`` checker packages
installed). Where the language is narrower than the format, `NARROWER` says how; the caller reports it.

- ``date``: RFC 3339 full-date, years 0001-9999, days per month, 29 February only in leap years.
- ``time``, ``date-time``: RFC 3339 with ``Z`` or a numeric offset, no leap second (the checker
  rejects it too); ``T``/``Z`` in either case (the checker upper-cases first).
- ``duration``: ISO 8601 ``P…`` with integer components, or weeks ``PnW``.
- ``email``: a dot-atom local part ``@`` a hostname.
- ``hostname``: RFC 1123 labels (letters, digits, inner hyphens), at most 253 characters, a final dot allowed.
- ``ipv4``: dotted quad without leading zeros; ``ipv6``: RFC 4291 text forms (the checker refuses zone ids too).
- ``uuid``: 8-4-4-4-12 hex digits; ``uri``, ``uri-reference``: RFC 3986 (IPvFuture literals too);
  ``iri``, ``iri-reference``: RFC 3987 as the checker's grammar (``rfc3987-syntax``) reads it: non-ASCII
  characters of the Basic Multilingual Plane, and IPv6 literals where ``::`` stands for exactly one group.
- ``json-pointer``: RFC 6901; ``relative-json-pointer``: a level count, then ``#`` or a JSON pointer.
- ``regex``: a regular subset of the patterns Python's ``re`` compiles (what the checker calls):
  arbitrary patterns need balanced nesting, which no automaton can count.

>>> from brzozowski.core.derivatives import matches
>>> date, fewest, most = parse_format("date")
>>> [matches(date, s) for s in (b"2024-02-29", b"2023-02-29", b"2023-04-31", b"2023-12-31")]
[True, False, False, True]
>>> fewest, most
(10, 10)

References: RFC 3339 §5.6, RFC 3986 §3 and Appendix A, RFC 3987, RFC 4291 §2.2, RFC 1123 §2.1, RFC 5322
§3.4.1 (dot-atom), RFC 6901 (JSON Pointer), draft-handrews-relative-json-pointer-01, ISO 8601 (durations).
"""

from __future__ import annotations

from .ecma_regex import Piece, parse_pattern

__all__ = ["FORMAT_PATTERNS", "NARROWER", "parse_format"]

_YEAR = r"(?:[0-9]{3}[1-9]|[0-9]{2}[1-9][0-9]|[0-9][1-9][0-9]{2}|[1-9][0-9]{3})"
_LEAP_YEAR = r"(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)"
_DATE = (
    rf"(?:{_YEAR}-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)"
    rf"|(?:0[13578]|1[02])-31)|{_LEAP_YEAR}-02-29)"
)
_TIME = r"(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"
_DIGITS = r"[0-9]+"
_DURATION_DATE = rf"(?:{_DIGITS}Y(?:{_DIGITS}M)?(?:{_DIGITS}D)?|{_DIGITS}M(?:{_DIGITS}D)?|{_DIGITS}D)"
_DURATION_TIME = rf"T(?:{_DIGITS}H(?:{_DIGITS}M)?(?:{_DIGITS}S)?|{_DIGITS}M(?:{_DIGITS}S)?|{_DIGITS}S)"
_DURATION = rf"P(?:{_DIGITS}W|{_DURATION_DATE}(?:{_DURATION_TIME})?|{_DURATION_TIME})"

_LABEL_63 = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_LABEL_30 = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,28}[A-Za-z0-9])?"
#: Up to 3 labels of up to 63 characters, or up to 8 of up to 30: at most 247 characters either way.
_HOSTNAME = rf"(?:{_LABEL_63}(?:\.{_LABEL_63}){{0,2}}|{_LABEL_30}(?:\.{_LABEL_30}){{0,7}})"
_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_EMAIL = rf"{_ATEXT}+(?:\.{_ATEXT}+)*@{_HOSTNAME}"

_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_IPV4 = rf"{_OCTET}(?:\.{_OCTET}){{3}}"
_H16 = r"[0-9A-Fa-f]{1,4}"
_LS32 = rf"(?:{_H16}:{_H16}|{_IPV4})"
_IPV6 = "(?:" + "|".join([
    rf"(?:{_H16}:){{6}}{_LS32}",
    rf"::(?:{_H16}:){{5}}{_LS32}",
    rf"(?:{_H16})?::(?:{_H16}:){{4}}{_LS32}",
    rf"(?:(?:{_H16}:){{0,1}}{_H16})?::(?:{_H16}:){{3}}{_LS32}",
    rf"(?:(?:{_H16}:){{0,2}}{_H16})?::(?:{_H16}:){{2}}{_LS32}",
    rf"(?:(?:{_H16}:){{0,3}}{_H16})?::{_H16}:{_LS32}",
    rf"(?:(?:{_H16}:){{0,4}}{_H16})?::{_LS32}",
    rf"(?:(?:{_H16}:){{0,5}}{_H16})?::{_H16}",
    rf"(?:(?:{_H16}:){{0,6}}{_H16})?::",
]) + ")"
_HEX = "[0-9A-Fa-f]"
_UUID = rf"{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}"

# RFC 3986, Appendix A; IRIs (RFC 3987 §2.2) add `_UCSCHAR` to the unreserved characters and
# `_IPRIVATE` to the query. The checker's IRI grammar (rfc3987-syntax) has ``ucschar`` in the Basic
# Multilingual Plane only, and its IPv6 literals let ``::`` stand for exactly one group of zeros
# (`_IRI_IPV6`: ``[::1]`` is not an IRI to it), so the IRI forms use those.
_UNRESERVED = r"A-Za-z0-9\-._~"
_UCSCHAR = r"\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF"
_IPRIVATE = r"\uE000-\uF8FF"
_SUB_DELIMS = r"!$&'()*+,;="
_PCT = rf"%{_HEX}{_HEX}"
_IPVFUTURE = rf"v{_HEX}+\.[{_UNRESERVED}{_SUB_DELIMS}:]+"
_IRI_IPV6 = "(?:" + "|".join(
    [f"(?:{_H16}:){{6}}{_LS32}", f"::(?:{_H16}:){{5}}{_LS32}"]
    + [f"(?:{_H16}:){{{k - 1}}}{_H16}::(?:{_H16}:){{{5 - k}}}{_LS32}" for k in range(1, 6)]
    + [f"(?:{_H16}:){{5}}{_H16}::{_H16}", f"(?:{_H16}:){{6}}{_H16}::"]
) + ")"


def _uri_forms(unreserved: str, ipv6: str, query_extra: str) -> tuple[str, str]:
    """The (absolute URI, relative reference) patterns over `unreserved` characters, with `ipv6`
    literals and `query_extra` characters allowed in the query only."""
    pchar = rf"(?:[{unreserved}{_SUB_DELIMS}:@]|{_PCT})"
    segment_nz_nc = rf"(?:[{unreserved}{_SUB_DELIMS}@]|{_PCT})+"
    authority = (
        rf"(?:(?:[{unreserved}{_SUB_DELIMS}:]|{_PCT})*@)?"
        rf"(?:\[(?:{ipv6}|{_IPVFUTURE})\]|(?:[{unreserved}{_SUB_DELIMS}]|{_PCT})*)(?::[0-9]*)?"
    )
    path_abempty = rf"(?:/{pchar}*)*"
    path_absolute = rf"/(?:{pchar}+(?:/{pchar}*)*)?"
    query_fragment = rf"(?:\?(?:{pchar}|[/?{query_extra}])*)?(?:#(?:{pchar}|[/?])*)?"
    absolute = (
        rf"[A-Za-z][A-Za-z0-9+\-.]*:(?://{authority}{path_abempty}|{path_absolute}"
        rf"|{pchar}+(?:/{pchar}*)*)?{query_fragment}"
    )
    relative = rf"(?://{authority}{path_abempty}|{path_absolute}|{segment_nz_nc}(?:/{pchar}*)*)?{query_fragment}"
    return absolute, relative


_URI, _RELATIVE_REF = _uri_forms(_UNRESERVED, _IPV6, "")
_IRI, _IRELATIVE_REF = _uri_forms(_UNRESERVED + _UCSCHAR, _IRI_IPV6, _IPRIVATE)

_JSON_POINTER = r"(?:/(?:[^/~]|~[01])*)*"
#: The level count as the checker reads it: no digit may follow a 0 (so 10 is a count, 100 is not).
_RELATIVE_JSON_POINTER = rf"(?:0|[1-9]+0?)(?:#|{_JSON_POINTER})"

# A regular subset of the patterns Python's ``re`` compiles (the checker calls ``re.compile``):
# literal characters, escaped metacharacters and class escapes, ``.``, classes without ranges,
# groups one level deep, quantifiers ``* + ?`` (lazy or not) on those, anchors never quantified.
_RE_LITERAL = r"[^\\^$.|?*+()\[\]{}]"
_RE_ESCAPE = r"\\[\\^$.|?*+()\[\]{}dDwWsSntrfv]"
_RE_CLASS = r"\[\^?(?:[^\\\]\[\-^&~|]|\\[\\\]\[\-^dDwWsSntrfv])+\]"
_RE_ANCHOR = r"(?:\^|\$|\\[bBAZ])"
_RE_QUANTIFIER = r"(?:[*+?]\??)?"
_RE_INNER_PIECE = rf"(?:(?:{_RE_LITERAL}|{_RE_ESCAPE}|\.|{_RE_CLASS}){_RE_QUANTIFIER}|{_RE_ANCHOR})"
_RE_GROUP = rf"\((?:\?:)?{_RE_INNER_PIECE}*(?:\|{_RE_INNER_PIECE}*)*\)"
_RE_PIECE = rf"(?:(?:{_RE_LITERAL}|{_RE_ESCAPE}|\.|{_RE_CLASS}|{_RE_GROUP}){_RE_QUANTIFIER}|{_RE_ANCHOR})"
_REGEX = rf"{_RE_PIECE}*(?:\|{_RE_PIECE}*)*"

#: Each implemented format and its (anchored) pattern over the decoded string.
FORMAT_PATTERNS: dict[str, str] = {
    "date": f"^{_DATE}$",
    "time": f"^{_TIME}$",
    "date-time": f"^{_DATE}[Tt]{_TIME}$",
    "duration": f"^{_DURATION}$",
    "email": f"^{_EMAIL}$",
    "hostname": rf"^{_HOSTNAME}\.?$",
    "ipv4": f"^{_IPV4}$",
    "ipv6": f"^{_IPV6}$",
    "uuid": f"^{_UUID}$",
    "uri": f"^{_URI}$",
    "uri-reference": f"^(?:{_URI}|{_RELATIVE_REF})$",
    "iri": f"^{_IRI}$",
    "iri-reference": f"^(?:{_IRI}|{_IRELATIVE_REF})$",
    "json-pointer": f"^{_JSON_POINTER}$",
    "relative-json-pointer": f"^{_RELATIVE_JSON_POINTER}$",
    "regex": f"^{_REGEX}$",
}

#: How each format's language is narrower than the format, for ``--explain``.
NARROWER: dict[str, str] = {
    "duration": "durations use integer components only (no decimal fractions)",
    "email": "e-mail addresses use a dot-atom local part and a hostname domain (no quoted local parts, "
             "no address literals)",
    "hostname": "hostnames have at most 3 labels of up to 63 characters or 8 labels of up to 30, in ASCII "
                "(the checker also takes other Unicode digits)",
    "ipv6": "IPv6 addresses are written in the RFC 4291 text forms",
    "uuid": "UUIDs are written in the 8-4-4-4-12 form only (the checker also takes extra hyphens and braces)",
    "time": "times end without a final newline (the checker's regex lets one through)",
    "date-time": "date-times end without a final newline (the checker's regex lets one through)",
    "uri": "URIs end without a final newline and write the IPv4 end of an IPv6 literal without leading "
           "zeros (the checker's regex lets both through)",
    "uri-reference": "URI references end without a final newline and write the IPv4 end of an IPv6 literal "
                     "without leading zeros (the checker's regex lets both through)",
    "iri": "IRIs have IPv6 host literals only where '::' stands for exactly one group and no characters "
           "above U+FFFF (as the checker's grammar, rfc3987-syntax, reads them: it refuses [::1])",
    "iri-reference": "IRI references have IPv6 host literals only where '::' stands for exactly one group "
                     "and no characters above U+FFFF (as the checker's grammar, rfc3987-syntax, reads them)",
    "relative-json-pointer": "relative JSON pointers count levels in ASCII digits, no digit after a 0 "
                             "(as the checker reads them: it refuses 100; it also takes other Unicode digits)",
    "regex": "regular expressions use literal characters, escapes, '.', classes without ranges, groups "
             "one level deep and the quantifiers * + ? (no ranges, counted repeats, backreferences or "
             "nested groups: a subset Python's re compiles)",
}


def parse_format(name: str) -> Piece:
    """The JSON string contents (no quotes) of the strings of format `name` (a key of `FORMAT_PATTERNS`),
    and the fewest and most characters they have (as `brzozowski.json.ecma_regex.parse_pattern`)."""
    return parse_pattern(FORMAT_PATTERNS[name])
