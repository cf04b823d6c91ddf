"""The OpenAPI document: a valid 3.1 document listing every route of the table, served with a docs page."""

from __future__ import annotations

import re

import pytest
from openapi_spec_validator import OpenAPIV31SpecValidator

from telephony import openapi, wiring
from telephony.api.route_table import template, version_prefix

SERVICE = "voipstudio"
METHODS = {"get", "post", "patch", "delete", "put"}


@pytest.fixture(scope="module")
def document() -> dict:
    return openapi.build_document(wiring.api_routes(), SERVICE, wiring.control_routes())


def operation(document: dict, method: str, path: str, version: str = "v1.2") -> dict:
    return document["paths"][f"/{version}/{SERVICE}{path}"][method.lower()]


def test_the_document_is_valid_openapi_3_1(document):
    assert document["openapi"].startswith("3.1")
    errors = [f"{list(e.path)}: {e.message}" for e in OpenAPIV31SpecValidator(document).iter_errors()]
    assert errors == []


def test_every_route_appears_under_each_of_its_versions_and_every_control_route_once(document):
    expected = {
        (route.method.lower(), version_prefix(version, SERVICE) + template(route.path))
        for route in wiring.api_routes()
        for version in route.versions
    } | {(route.method.lower(), template(route.path)) for route in wiring.control_routes()}
    listed = {(method, path) for path, item in document["paths"].items() for method in item if method in METHODS}
    assert listed == expected


def test_every_route_is_described_not_guessed():
    routes = [*wiring.api_routes(), *wiring.control_routes()]
    undescribed = [f"{route.method} {template(route.path)}" for route in routes if route.shape is None]
    assert undescribed == [], "give these routes a shape= on their Route"


def test_operation_ids_are_unique(document):
    ids = [op["operationId"] for item in document["paths"].values() for op in item.values()]
    assert len(ids) == len(set(ids))


def test_path_parameters_are_typed(document):
    def schema(method, path, name):
        params = operation(document, method, path)["parameters"]
        return next(p["schema"] for p in params if p["name"] == name and p["in"] == "path")

    assert schema("GET", "/contacts/{id}", "id")["type"] == "integer"
    assert re.fullmatch(schema("DELETE", "/contacts/{ids}", "ids")["pattern"], "1,2,3")
    assert schema("GET", "/ddis/{e164}", "e164")["type"] == "string"
    thread = "/users/{id}/smsthreads/{from}/{to}"
    assert schema("GET", thread, "from")["type"] == schema("GET", thread, "to")["type"] == "string"
    assert schema("DELETE", "/apitokens/{token}", "token")["type"] == "string"


def test_authenticated_routes_name_both_schemes_and_the_login_family_none(document):
    schemes = document["components"]["securitySchemes"]
    assert schemes["XAuthToken"] == {"type": "apiKey", "in": "header", "name": "X-Auth-Token"}
    assert schemes["BasicAuth"]["scheme"] == "basic"
    assert operation(document, "GET", "/contacts")["security"] == [{"XAuthToken": []}, {"BasicAuth": []}]
    assert "401" in operation(document, "GET", "/contacts")["responses"]
    for path in ("/login", "/login2fa", "/password", "/reset", "/confirmation"):
        assert operation(document, "POST", path, "v1.1")["security"] == []


def body_ref(document: dict, method: str, path: str) -> dict:
    return operation(document, method, path)["requestBody"]["content"]["application/json"]["schema"]


def test_bodies_come_from_the_resource_declarations(document):
    ref = "#/components/schemas/{}".format
    assert body_ref(document, "POST", "/contacts") == {"$ref": ref("ContactCreate")}
    assert body_ref(document, "PATCH", "/contacts/{id}") == {"$ref": ref("ContactPatch")}
    assert body_ref(document, "PATCH", "/contacts") == {"type": "array", "items": {"$ref": ref("ContactBulkItem")}}
    assert body_ref(document, "POST", "/login") == {"$ref": ref("Login")}
    assert body_ref(document, "PATCH", "/users") == {"type": "array", "items": {"$ref": ref("UserBulkItem")}}
    patch = document["components"]["schemas"]["ContactPatch"]
    assert not patch.get("required")  # every PATCH field is optional


def test_answers_use_the_envelopes_and_declared_statuses(document):
    listing = operation(document, "GET", "/contacts")["responses"]["200"]["content"]["application/json"]["schema"]
    assert listing["properties"]["data"] == {"type": "array", "items": {"$ref": "#/components/schemas/Contact"}}
    assert listing["properties"]["total"]["type"] == "integer"
    one = operation(document, "POST", "/contacts")["responses"]["201"]["content"]["application/json"]["schema"]
    assert one["properties"]["data"] == {"$ref": "#/components/schemas/Contact"}
    assert set(one["required"]) == {"data", "links"}
    assert set(operation(document, "DELETE", "/contacts/{ids}")["responses"]) >= {"202"}
    assert set(operation(document, "DELETE", "/monitors")["responses"]) >= {"202"}
    assert set(operation(document, "DELETE", "/conferences/{id}")["responses"]) >= {"204", "404"}
    assert set(operation(document, "POST", "/login")["responses"]) >= {"200", "202", "400"}


def test_errors_have_the_spec_body(document):
    error = document["components"]["schemas"]["ErrorBody"]
    assert set(error["required"]) == {"message", "errors"}
    item = document["components"]["schemas"]["FieldError"]
    assert item["properties"]["field"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    for status in ("400", "401", "403", "404", "405"):
        response = document["components"]["responses"][status]
        assert response["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/ErrorBody"}


def test_list_query_parameters(document):
    params = {p["name"]: p for p in operation(document, "GET", "/ringgroups")["parameters"]}
    assert set(params) == {"page", "limit", "filter", "sort", "dir", "group_by", "include"}
    assert params["dir"]["schema"]["enum"] == ["ASC", "DESC"]
    assert "name" in params["sort"]["schema"]["enum"] and "-name" in params["sort"]["schema"]["enum"]
    assert re.fullmatch(params["include"]["schema"]["pattern"], "ddis,users")
    assert "include" not in {p["name"] for p in operation(document, "GET", "/contacts")["parameters"]}


def test_dictionary_fields_list_their_codes_and_names(document):
    strategy = document["components"]["schemas"]["RingGroupCreate"]["properties"]["strategy"]
    coded = next(option for option in strategy["anyOf"] if "enum" in option)
    assert 1 in coded["enum"] and "ringall" in coded["enum"]


async def test_served_open_with_a_self_contained_docs_page(client):
    response = await client.get("/_telephony/openapi.json")
    assert response.status == 200
    assert response.content_type == "application/json"
    assert await response.json() == openapi.build_document(wiring.api_routes(), SERVICE, wiring.control_routes())
    page = await client.get("/_telephony/docs")
    assert page.status == 200
    assert page.content_type == "text/html"
    html = await page.text()
    assert "openapi.json" in html
    assert not re.search(r"(?:src|href)=[\"']?(?:https?:)?//", html)  # nothing loaded from elsewhere
    assert "http://" not in html and "https://" not in html


def test_control_routes_need_the_control_key_and_health_and_the_document_are_open(document):
    assert document["components"]["securitySchemes"]["ControlKey"]["name"] == "X-Control-Key"
    assert document["paths"]["/_telephony/clock"]["post"]["security"] == [{"ControlKey": []}]
    for path in ("/_telephony/health", "/_telephony/openapi.json", "/_telephony/docs"):
        assert document["paths"][path]["get"]["security"] == []
    assert set(document["paths"]["/_telephony/health"]["get"]["responses"]) == {"200", "503"}
    imported = document["paths"]["/_telephony/import"]["post"]["requestBody"]["content"]
    assert list(imported) == ["application/x-ndjson"]


def test_the_constraints_the_server_checks_are_in_the_document(document):
    params = {p["name"]: p for p in operation(document, "GET", "/cdrs")["parameters"]}
    condition_list = params["filter"]["content"]["application/json"]["schema"]
    assert condition_list["maxItems"] == 50
    assert condition_list["items"]["required"] == ["property", "operator"]
    path_id = next(p for p in operation(document, "GET", "/cdrs/{id}")["parameters"] if p["name"] == "id")
    assert path_id["schema"] == {"type": "integer", "minimum": 0, "maximum": 2**63 - 1}
    assert "413" in operation(document, "POST", "/contacts")["responses"]
    assert "Retry-After" in document["components"]["responses"]["429"]["headers"]
    move = document["components"]["schemas"]["ClockMove"]["properties"]
    assert move["advance"]["anyOf"][0]["minimum"] == 0 and "pattern" in move["set"]["anyOf"][0]
