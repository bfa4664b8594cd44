"""GET /openapi.json and `mocksrv openapi`: one document, naming every route the app serves."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from mocksrv.cli import main
from mocksrv.contract.document import document, openapi_path


def test_the_document_is_served_without_a_key(app: Flask, client: FlaskClient) -> None:
    answer = client.get("/openapi.json")

    assert answer.status_code == 200
    assert answer.mimetype == "application/json"
    assert answer.json == document(app)
    assert answer.json["openapi"] == "3.1.0"
    assert answer.json["info"]["title"] == "mocksrv"


def test_every_route_and_method_of_the_app_is_in_the_document(app: Flask) -> None:
    served = {
        (openapi_path(rule.rule), method.lower())
        for rule in app.url_map.iter_rules()
        if rule.endpoint != "static"
        for method in rule.methods or ()
        if method not in ("HEAD", "OPTIONS")
    }
    documented = {
        (path, method) for path, operations in document(app)["paths"].items() for method in operations
    }

    assert documented == served


def test_every_operation_id_is_unique(app: Flask) -> None:
    ids = [
        operation["operationId"]
        for operations in document(app)["paths"].values()
        for operation in operations.values()
    ]

    assert [name for name in ids if ids.count(name) > 1] == []


def test_an_endpoint_served_on_two_rules_has_an_operation_id_per_method(app: Flask) -> None:
    operations = document(app)["paths"]["/payouts/{payout_id}"]

    assert {method: operation["operationId"] for method, operation in operations.items()} == {
        "get": "payouts.retrieve_payout",
        "post": "payouts.update_payout_post",
        "put": "payouts.update_payout_put",
    }


def test_a_body_is_described_by_the_schema_that_validates_it(app: Flask) -> None:
    operation = document(app)["paths"]["/customers"]["post"]

    assert operation["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/CustomerCreate"
    }
    created = document(app)["components"]["schemas"]["CustomerCreate"]
    assert created["additionalProperties"] is False
    assert created["properties"]["name"] == {"type": ["string", "null"], "maxLength": 255}
    assert sorted(operation["responses"]) == ["200", "400", "401", "413", "429", "431"]


# The HTTP server refuses a body or headers over the limit on every route, before the app: a body
# with a page for a hosted page's path, headers always with JSON.
@pytest.mark.parametrize(
    ("path", "method", "too_large_body", "too_large_headers"),
    [
        ("/payment_methods/{payment_method_id}", "delete", "Error", "Error"),
        ("/disputes/list", "get", "Error", "Error"),
        ("/api/v1", "get", "Error", "Error"),
        ("/web/3ds/{merchant_id}/{payment_id}", "post", "PageError", "Error"),
        ("/web/{version}/v1/HyperLoader.js", "get", "PageError", "Error"),
        ("/payment_link/{merchant_id}/{payment_link_id}", "get", "PageError", "Error"),
    ],
)
def test_every_route_lists_413_and_431_in_the_shape_the_server_answers(
    app: Flask, path: str, method: str, too_large_body: str, too_large_headers: str
) -> None:
    responses = document(app)["paths"][path][method]["responses"]

    assert responses["413"] == {"$ref": f"#/components/responses/{too_large_body}"}
    assert responses["431"] == {"$ref": f"#/components/responses/{too_large_headers}"}


def test_the_outcome_table_a_put_replaces_is_described(app: Flask) -> None:
    operation = document(app)["paths"]["/__mock/outcomes"]["put"]

    assert operation["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ControlOutcomes"
    }
    assert sorted(document(app)["components"]["schemas"]["ControlOutcomes"]["properties"]) == [
        "merchant_id",
        "rules",
    ]


def test_mocksrv_openapi_prints_the_document(app: Flask, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["openapi"]) == 0

    assert json.loads(capsys.readouterr().out) == document(app)


def test_mocksrv_openapi_writes_the_document_to_a_file(app: Flask, tmp_path: Path) -> None:
    assert main(["openapi", "--output", str(tmp_path / "openapi.json")]) == 0

    assert json.loads((tmp_path / "openapi.json").read_text()) == document(app)


def test_mocksrv_openapi_says_why_it_cannot_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "missing" / "openapi.json"

    assert main(["openapi", "--output", str(target)]) == 1

    assert capsys.readouterr().err == f"mocksrv: cannot write {target}: No such file or directory\n"


def test_a_route_without_its_description_stops_the_document(app: Flask) -> None:
    app.add_url_rule("/undescribed", "undescribed", dict)

    with pytest.raises(LookupError, match=r"route /undescribed \(undescribed\) has no @documented"):
        document(app)


@pytest.mark.parametrize(
    ("path", "method", "schemes"),
    [
        ("/payments", "post", ["api_key"]),
        ("/payments/{payment_id}", "get", ["api_key", "publishable_key"]),
        ("/payments/{payment_id}/confirm", "post", ["api_key", "publishable_key"]),
        ("/payments/session_tokens", "post", ["publishable_key"]),
        ("/{customer_id}/payment_methods/{payment_method_id}/default", "post", ["api_key", "ephemeral_key"]),
        ("/__mock/clock", "get", ["admin_api_key", "api_key"]),
        ("/__mock/merchants", "post", ["admin_api_key"]),
        ("/api/v1", "get", ["legacy_basic"]),
        ("/api/v1/{gateway}/card/initiate", "post", ["legacy_bearer"]),
        ("/api/v1/card/unified", "post", ["legacy_bearer"]),
        ("/openapi.json", "get", []),
    ],
)
def test_the_document_names_the_keys_each_route_takes(
    app: Flask, path: str, method: str, schemes: list[str]
) -> None:
    operation = document(app)["paths"][path][method]

    assert operation["security"] == [{scheme: []} for scheme in schemes]


def test_every_key_is_sent_in_the_api_key_header(app: Flask) -> None:
    schemes = document(app)["components"]["securitySchemes"]
    keys = {name: scheme for name, scheme in schemes.items() if scheme["type"] == "apiKey"}

    assert sorted(keys) == ["admin_api_key", "api_key", "ephemeral_key", "publishable_key"]
    assert {(s["in"], s["name"]) for s in keys.values()} == {("header", "api-key")}


def test_the_legacy_credentials_are_sent_with_http_basic_and_bearer(app: Flask) -> None:
    schemes = document(app)["components"]["securitySchemes"]

    assert {name: (s["type"], s["scheme"]) for name, s in schemes.items() if s["type"] != "apiKey"} == {
        "legacy_basic": ("http", "basic"),
        "legacy_bearer": ("http", "bearer"),
    }


def test_every_legacy_route_names_the_credentials_it_takes(app: Flask) -> None:
    operations = [
        operation
        for path, methods in document(app)["paths"].items()
        if path.startswith("/api/v1")
        for operation in methods.values()
    ]

    assert operations
    assert [operation["security"] for operation in operations if not operation["security"]] == []


def test_marshmallow_keeps_a_schema_classs_fields_unbound_in_declared_fields() -> None:
    # Pins what mocksrv/api/answers/payments.py reads: a request field, shown back in an answer,
    # is documented from the class's own field, not one bound to the request schema.
    from mocksrv.api.schemas.payments import PaymentCreateSchema

    field = PaymentCreateSchema._declared_fields["description"]
    bound = PaymentCreateSchema().fields["description"]

    assert type(field) is type(bound)
    assert (field.name, field.parent) == (None, None)
    assert (bound.name, type(bound.parent)) == ("description", PaymentCreateSchema)


# Built in a new interpreter: in this one, the schemas every test has used are made already.
_BUILT_BEFORE_AND_AFTER_A_PAYMENT = """
import json
from mocksrv.app import create_app
from mocksrv.contract.document import document

first = json.dumps(document(create_app()), sort_keys=True)
answer = create_app().test_client().post(
    "/payments",
    json={"amount": 1, "currency": "USD", "profile_id": "pro_default"},
    headers={"api-key": "snd_default_secret_key"},
)
assert answer.status_code == 200, answer.json
print(first == json.dumps(document(create_app()), sort_keys=True))
"""


def test_the_document_does_not_change_with_the_requests_served_before_it() -> None:
    ran = subprocess.run(
        [sys.executable, "-c", _BUILT_BEFORE_AND_AFTER_A_PAYMENT], capture_output=True, text=True, timeout=120
    )

    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "True\n", "")


def test_a_resource_id_in_a_path_is_never_a_word_that_is_a_route_beside_it(app: Flask) -> None:
    parameters = document(app)["paths"]["/payouts/{payout_id}"]["get"]["parameters"]

    assert parameters == [
        {
            "name": "payout_id",
            "in": "path",
            "required": True,
            "schema": {
                "type": "string",
                "minLength": 1,
                "not": {
                    "enum": [
                        "list",
                        "create",
                        "filter",
                        "evidence",
                        "payment_methods",
                        "session_tokens",
                        "customer_info",
                    ]
                },
            },
        }
    ]
