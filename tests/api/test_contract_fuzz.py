"""The served OpenAPI document, exercised by schemathesis: requests generated from its own schemas.

Every operation gets up to `MOCKSRV_FUZZ_EXAMPLES` generated requests (default 100, about two
minutes in `make test`; `make fuzz` runs many more). Each answer must not be a 5xx, must have a
status the document lists for the operation, the content type it lists, and a body its schema
admits.
"""

from __future__ import annotations

import os

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from mocksrv.app import create_app
from mocksrv.fieldtypes import RESERVED_IDS
from mocksrv.settings import Settings
from tests import contract
from tests.payloads import SECRET_KEY

EXAMPLES = int(os.environ.get("MOCKSRV_FUZZ_EXAMPLES", "100"))
SEEDED_AT_MOST = 100
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]

# One app for the whole module, without a rate limit: generated requests are many and quick.
app = create_app(Settings(rate_limit=0))
schema = schemathesis.openapi.from_wsgi("/openapi.json", app)


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
def test_every_answer_conforms_to_the_document(case: schemathesis.Case) -> None:
    if set((case.path_parameters or {}).values()) & set(RESERVED_IDS):
        # An id the document says no resource has (a word that is a route of its own there, as
        # `/payments/session_tokens`): the request is that route's, answered as its method is.
        return
    if case.path == "/__mock/seed" and isinstance(case.body, dict) and type(case.body.get("payments")) is int:
        # Up to 10,000 payments is a valid seed, and a second of work: a hundred shows the same.
        case.body["payments"] = min(case.body["payments"], SEEDED_AT_MOST)
    response = case.call_and_validate(headers={"api-key": SECRET_KEY}, checks=CHECKS)
    contract.record(case.path, case.method, response.status_code)
    if case.path == "/__mock/faults" and case.method == "POST":
        # A generated fault rule would answer the requests generated after it (late, or not at all).
        cleared = app.test_client().delete("/__mock/faults", headers={"api-key": SECRET_KEY})
        assert cleared.status_code == 200
