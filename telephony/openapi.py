"""The OpenAPI 3.1 document of the whole API, built from the route table, and a page that reads it.

Each route declares what it takes and answers as its `Shape` (registry routes get theirs from their
`Resource` declarations), the operator's control routes too (under `/_telephony`, with the control
key). Every schema comes from a msgspec Struct through `msgspec.json.schema_components`, so the
document says what the handlers decode and answer, with every constraint they check: patterns,
bounds, list filters' limits, ids up to 64 bits, the body size (413), `Retry-After` on 429. Served
open at `GET /_telephony/openapi.json` and `GET /_telephony/docs`, from the routes the app mounted
(`create_app` puts a `Document` of them under `keys.OPENAPI`).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable, Mapping
from typing import Any

import msgspec
from aiohttp import web
from msgspec import inspect as mi

from .api.control import control_route, control_shape
from .api.errors import ErrorBody
from .api.route_table import Route, template, version_prefix
from .api.shapes import JSON, Shape
from .collections import Kind
from .collections.filters import MAX_CONDITIONS, MAX_FILTER_BYTES, MAX_IN_VALUES, OPERATORS
from .domain.dictionaries import DICTIONARIES
from .domain.types import Resource as ResourceModel
from .domain.types import dictionary_fields
from .keys import OPENAPI

REF = "#/components/schemas/{name}"
MAX_ID = 2**63 - 1
_PARAM = re.compile(r"\{(\w+)(?::((?:[^{}]|\{[^{}]*\})*))?\}")
ERRORS = {
    400: "Invalid request: a malformed body or query, or a value out of range",
    401: "Missing, unknown or expired token",
    403: "Authenticated, but not allowed",
    404: "Unknown id, or another customer's",
    405: "Method not allowed on this path",
    402: "The balance cannot pay for it (with [billing] enforce_balance on)",
    409: "Conflicts with what was recorded before (a stream moved on, an id is taken)",
    412: "Precondition failed (for example: no VoIP client registered)",
    413: "The request body is larger than the server takes ([server] max_body_bytes, 16 MiB by default)",
    429: "Too many failed attempts; try again after Retry-After seconds",
}
RETRY_AFTER = {
    "Retry-After": {"description": "seconds until the lock lifts", "schema": {"type": "integer", "minimum": 1}}
}
ORIGINS = {
    "real-platform": "Not in the spec: the real platform has it (real-platform.md)",
    "control": "Operator endpoint of this server, beside the API",
}
SECURITY: list[dict[str, list[str]]] = [{"XAuthToken": []}, {"BasicAuth": []}]
CONTROL_SECURITY: list[dict[str, list[str]]] = [{"ControlKey": []}]
CONTROL = "control"


def path_parameters(path: str) -> list[dict[str, Any]]:
    """A route's path parameters, typed from its regular expressions (`[0-9]+` is an integer; a number
    beyond 64 bits names nothing, so it is a 404 like any unknown id)."""
    out = []
    for name, pattern in _PARAM.findall(path):
        if pattern == "[0-9]+":
            schema: dict[str, Any] = {"type": "integer", "minimum": 0, "maximum": MAX_ID}
        elif pattern:
            schema = {"type": "string", "pattern": f"^(?:{pattern})$"}
        else:
            schema = {"type": "string", "minLength": 1}
        out.append({"name": name, "in": "path", "required": True, "schema": schema})
    return out


def list_parameters(props: Mapping[str, Kind], includes: Iterable[str] = ()) -> list[dict[str, Any]]:
    names = sorted(props)
    condition = {
        "type": "object",
        "properties": {
            "property": {"enum": names},
            "operator": {"enum": list(OPERATORS), "description": "operators are case-insensitive"},
            "value": {"description": f"read as the property's type; an array of at most {MAX_IN_VALUES} for `in`, "
                      "text for `like`/`notlike`; a bare date on a time property stands for its day"},
        },
        "required": ["property", "operator"],
    }  # fmt: skip
    params: list[dict[str, Any]] = [
        {"name": "page", "schema": {"type": "integer", "minimum": 1}, "description": "page number, from 1"},
        {"name": "limit", "schema": {"type": "integer", "minimum": 1},
         "description": "records per page; above 5000 is served as 5000"},
        {"name": "filter", "content": {JSON: {"schema": {"type": "array", "items": condition,
                                                          "maxItems": MAX_CONDITIONS}}},
         "description": f"JSON array of {{property, operator, value}}, all ANDed; at most {MAX_FILTER_BYTES} bytes"},
        {"name": "sort", "schema": {"enum": [*names, *(f"-{n}" for n in names)]},
         "description": "property to order by; a leading '-' sorts descending"},
        {"name": "dir", "schema": {"enum": ["ASC", "DESC"]}},
        {"name": "group_by", "schema": {"enum": names}},
    ]  # fmt: skip
    return [*(p | {"in": "query"} for p in params), *include_parameter(includes)]


def include_parameter(includes: Iterable[str]) -> list[dict[str, Any]]:
    names = "|".join(map(re.escape, includes))
    if not names:
        return []
    schema = {"type": "string", "pattern": f"^({names})(,({names}))*$"}
    return [{"name": "include", "in": "query", "schema": schema, "description": "related records to embed"}]


def _json(schema: dict[str, Any], description: str = "") -> dict[str, Any]:
    return {"description": description or "OK", "content": {JSON: {"schema": schema}}}


def _envelope(shape: Shape, model: dict[str, Any]) -> dict[str, Any]:
    if shape.envelope == "bare":
        return model
    if shape.envelope == "list":
        data, extra = {"type": "array", "items": model}, {"total": {"type": "integer", "minimum": 0}}
    elif shape.envelope == "data":
        data, extra = model, {}
    else:
        data, extra = model, {"links": {"$ref": REF.format(name="Links")}}
    return {"type": "object", "properties": {"data": data, **extra}, "required": ["data", *extra]}


class Schemas:
    """Every Struct the document names, converted once; `ref(type)` is its schema (a $ref for Structs)."""

    def __init__(self, types: Iterable[Any]) -> None:
        self.types = list(dict.fromkeys([ErrorBody, *types]))
        structs = sorted(_structs(self.types), key=lambda t: (t.__module__, t.__qualname__))
        self.types += [s for s in structs if s not in self.types]
        schemas, self.components = msgspec.json.schema_components(self.types, ref_template=REF)
        self._schemas = dict(zip(self.types, schemas, strict=True))
        for struct in structs:
            component = self.components[self._schemas[struct]["$ref"].rpartition("/")[2]]
            _code_enums(struct, component)
            if issubclass(struct, ResourceModel):  # answers: every field is always written
                component["required"] = list(component.get("properties", {}))
        self.components["Links"] = {"type": "object", "properties": {"self": {"type": "string"}}, "required": ["self"]}

    def ref(self, type_: Any) -> dict[str, Any]:
        return self._schemas[type_]

    def allow_embedding(self, model: type, includes: Iterable[str]) -> None:
        """With `include=users` (or `ddis`) the model's ids become the records themselves."""
        properties = self.components[self.ref(model)["$ref"].rpartition("/")[2]]["properties"]
        for name in includes:
            embedded = {"type": "array", "items": EMBEDDED.get(name, {"type": "object"})}
            properties[name] = {"anyOf": [properties[name], embedded], "description": f"records with include={name}"}


def _structs(types: Iterable[Any]) -> set[type]:
    found: set[type] = set()

    def walk(info: mi.Type) -> None:
        if isinstance(info, mi.StructType) and info.cls not in found:
            found.add(info.cls)
            for f in info.fields:
                walk(f.type)
        elif isinstance(info, mi.UnionType):
            for member in info.types:
                walk(member)
        elif isinstance(info, mi.Metadata):
            walk(info.type)
        elif isinstance(info, mi.ListType | mi.SetType | mi.FrozenSetType | mi.VarTupleType):
            walk(info.item_type)
        elif isinstance(info, mi.DictType):
            walk(info.value_type)

    for info in mi.multi_type_info(list(types)):
        walk(info)
    return found


_CODE = [{"type": "integer"}, {"type": "string"}]
_TEXT = {"type": "string"}
EMBEDDED: Mapping[str, dict[str, Any]] = {
    "users": {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "first_name": _TEXT,
            "last_name": _TEXT,
            "status": {"type": "boolean"},
        },
        "required": ["id"],
    },
    "ddis": {"type": "object", "properties": {"e164": _TEXT}, "required": ["e164"], "description": "a Ddi"},
}


def _code_enums(struct: type, component: dict[str, Any]) -> None:
    """Dictionary-backed fields list their allowed codes and names (names are case-insensitive)."""
    for name, dictionary in dictionary_fields(struct).items():
        entries = DICTIONARIES[dictionary].entries
        allowed = list(dict.fromkeys([*entries, *entries.values()]))
        _replace_code(component["properties"][name], allowed)


def _replace_code(node: Any, allowed: list[Any]) -> None:
    if isinstance(node, dict):
        if node.get("anyOf") == _CODE:
            del node["anyOf"]
            node["enum"] = allowed
            return
        for value in node.values():
            _replace_code(value, allowed)
    elif isinstance(node, list):
        for item in node:
            _replace_code(item, allowed)


def _operation(route: Route, version: str, schemas: Schemas) -> dict[str, Any]:
    path, shape = template(route.path), route.shape
    control = version == CONTROL and route.origin == "control"
    op: dict[str, Any] = {
        "operationId": re.sub(r"\W+", "_", f"{route.method.lower()}_{version}{path}").strip("_"),
        "summary": f"{route.method} {path}",
        "tags": [shape.tag if shape else "other"],
        "security": (CONTROL_SECURITY if control else SECURITY) if route.auth else [],
    }
    if route.origin != "spec":
        op["description"] = ORIGINS.get(route.origin, f"Origin: {route.origin}")
    shape = shape or Shape(envelope="bare", answer=None)
    if shape.security:
        op["security"] = [{scheme: []} for scheme in shape.security]
    params = path_parameters(route.path)
    if shape.listing is not None:
        params += list_parameters(shape.listing, shape.includes)
    elif shape.includes:
        params += include_parameter(shape.includes)
    params += [{"name": name, "in": "query", "schema": {"type": "string"}, "description": said}
               for name, said in shape.query.items()]  # fmt: skip
    if params:
        op["parameters"] = params
    if shape.body is not None:
        op["requestBody"] = {"required": True, "content": {shape.body_media: {"schema": schemas.ref(shape.body)}}}
    if shape.envelope == "none":
        responses: dict[str, Any] = {str(shape.status): {"description": "No content"}}
    elif shape.envelope == "file":
        file = {"type": "string", "contentMediaType": shape.media}
        responses = {str(shape.status): {"description": "The file", "content": {shape.media: {"schema": file}}}}
    else:
        model = schemas.ref(shape.answer) if shape.answer is not None else {}
        responses = {str(shape.status): _json(_envelope(shape, model))}
    for status, answer in shape.also.items():
        responses[str(status)] = _json(schemas.ref(answer), answer.__doc__ or "")
    unknown = (404,) if "{" in route.path else ()  # a path naming no record, or a number beyond 64 bits
    refused = () if not route.auth else (401,) if control else (401, 403)
    too_large = (413,) if shape.body is not None else ()
    errors = sorted({*shape.errors, *unknown, *refused, *too_large})
    responses |= {str(status): {"$ref": f"#/components/responses/{status}"} for status in errors}
    op["responses"] = responses
    return op


def build_document(routes: Iterable[Route], service: str, control: Iterable[Route] = ()) -> dict[str, Any]:
    """The OpenAPI 3.1 document of these API routes, each under the prefix of every version it serves,
    and of the operator's `control` routes (under `/_telephony`, with the control key)."""
    routes, control = list(routes), list(control)
    shapes = [route.shape for route in (*routes, *control) if route.shape]
    schemas = Schemas(t for shape in shapes for t in (shape.answer, shape.body, *shape.also.values()) if t)
    embedding = {shape.answer: shape.includes for shape in shapes if shape.includes}
    for model, includes in embedding.items():
        schemas.allow_embedding(model, includes)
    paths: dict[str, dict[str, Any]] = {}
    for route, version in itertools.chain.from_iterable(((r, v) for v in r.versions) for r in routes):
        path = version_prefix(version, service) + template(route.path)
        paths.setdefault(path, {})[route.method.lower()] = _operation(route, version, schemas)
    for route in control:
        paths.setdefault(template(route.path), {})[route.method.lower()] = _operation(route, CONTROL, schemas)
    error = _json(schemas.ref(ErrorBody))
    responses = {str(s): error | {"description": d} for s, d in ERRORS.items()}
    responses["429"]["headers"] = RETRY_AFTER
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "telephony",
            "version": "1.2",
            "description": "A cloud telephony platform's REST API, and this server's operator endpoints under "
            "/_telephony. Every error is {message, errors}; a method a path does not list answers 405; every GET "
            "path also answers HEAD.",
        },
        "servers": [{"url": "/"}],
        "paths": dict(sorted(paths.items())),
        "components": {
            "schemas": dict(sorted(schemas.components.items())),
            "responses": responses,
            "securitySchemes": {
                "XAuthToken": {"type": "apiKey", "in": "header", "name": "X-Auth-Token"},
                "BasicAuth": {"type": "http", "scheme": "basic", "description": "user_id:token or user_id:API key"},
                "ControlKey": {
                    "type": "apiKey",
                    "in": "header",
                    "name": "X-Control-Key",
                    "description": "the operator's key ([control] key)",
                },
            },
        },
    }


class Document:
    """The encoded document of an app's API and control routes, built on its first request, then kept."""

    def __init__(self, routes: Iterable[Route], service: str, control: Iterable[Route] = ()) -> None:
        self.routes, self.service, self.control = list(routes), service, list(control)

    @functools.cached_property
    def body(self) -> bytes:
        return msgspec.json.encode(build_document(self.routes, self.service, self.control))


async def openapi_json(request: web.Request) -> web.Response:
    return web.Response(body=request.app[OPENAPI].body, content_type=JSON)


async def docs_page(request: web.Request) -> web.Response:
    return web.Response(text=DOCS_PAGE, content_type="text/html")


ROUTES = [
    control_route("GET", "/openapi.json", openapi_json, control_shape(dict[str, Any], "bare"), open_=True),
    control_route("GET", "/docs", docs_page, control_shape(envelope="file", media="text/html"), open_=True),
]

DOCS_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>telephony API</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em auto;max-width:70em;padding:0 1em;color:#222}
details{border:1px solid #ddd;border-radius:4px;margin:.3em 0;padding:.2em .6em}
summary{cursor:pointer}code,.m{font-family:ui-monospace,monospace}
.m{display:inline-block;width:4.5em;font-weight:bold}.get{color:#2a7}.post{color:#27c}.patch{color:#c80}
.delete{color:#c33}table{border-collapse:collapse;margin:.4em 0}td,th{border:1px solid #ddd;padding:2px 6px;
text-align:left;vertical-align:top}h3{margin-top:1.5em}
</style></head><body><h1>telephony API</h1><p id="intro">Loading openapi.json&hellip;</p><div id="ops"></div>
<h2>Schemas</h2><div id="schemas"></div>
<script>
const esc = s => String(s).replace(/[&<>"]/g, c => ({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"}[c]));
function type(s) {
  if (!s || !Object.keys(s).length) return "any";
  if (s.$ref) { const n = s.$ref.split("/").pop(); return `<a href="#schema-${esc(n)}">${esc(n)}</a>`; }
  if (s.enum) return "one of " + s.enum.map(v => "<code>" + esc(JSON.stringify(v)) + "</code>").join(", ");
  if (s.anyOf) return s.anyOf.map(type).join(" | ");
  if (s.type === "array") return "array of " + type(s.items);
  if (s.type === "object" && s.properties)
    return "{" + Object.entries(s.properties).map(([k, v]) => esc(k) + ": " + type(v)).join(", ") + "}";
  const facets = ["pattern", "minimum", "maximum", "minLength", "maxLength"].filter(k => k in s)
    .map(k => k + " " + esc(s[k])).join(", ");
  return esc(s.type || "any") + (facets ? ` <small>(${facets})</small>` : "");
}
const table = (head, rows) => rows.length ? `<table><tr>${head.map(h => `<th>${h}</th>`).join("")}</tr>` +
  rows.map(r => `<tr>${r.map(c => `<td>${c}</td>`).join("")}</tr>`).join("") + "</table>" : "";
fetch("openapi.json").then(r => r.json()).then(doc => {
  document.getElementById("intro").innerHTML = esc(doc.info.description) + ` <a href="openapi.json">openapi.json</a>`;
  const schemaOf = c => c && c.content ? type(Object.values(c.content)[0].schema) : "";
  const byTag = {};
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(item)) (byTag[op.tags[0]] ||= []).push([path, method, op]);
  let html = "";
  for (const [tag, ops] of Object.entries(byTag).sort()) {
    html += `<h3>${esc(tag)}</h3>`;
    for (const [path, method, op] of ops) {
      const resp = Object.entries(op.responses).map(([code, r]) =>
        [code, r.$ref ? "error: " + type({$ref: "#/x/ErrorBody"}) : esc(r.description) + " " + schemaOf(r)]);
      const params = (op.parameters || []).map(p => [esc(p.name), p.in, p.required ? "yes" : "",
        p.schema ? type(p.schema) : "JSON " + schemaOf(p), esc(p.description || "")]);
      html += `<details><summary><span class="m ${method}">${method.toUpperCase()}</span><code>${esc(path)}</code>` +
        (op.security.length ? "" : " <small>(open)</small>") +
        (op.description ? ` <small>${esc(op.description)}</small>` : "") + "</summary>" +
        table(["parameter", "in", "required", "type", "description"], params) +
        (op.requestBody ? "<p>Body: " + schemaOf(op.requestBody) + "</p>" : "") +
        table(["status", "answer"], resp) + "</details>";
    }
  }
  document.getElementById("ops").innerHTML = html;
  document.getElementById("schemas").innerHTML = Object.entries(doc.components.schemas).map(([name, s]) =>
    `<details id="schema-${esc(name)}"><summary><code>${esc(name)}</code></summary><p>${esc(s.description || "")}</p>` +
    table(["property", "type", "required"], Object.entries(s.properties || {}).map(([k, v]) =>
      [esc(k), type(v), (s.required || []).includes(k) ? "yes" : ""])) + "</details>").join("");
  addEventListener("hashchange", () => { const d = document.querySelector(location.hash); if (d) d.open = true; });
});
</script></body></html>
"""
