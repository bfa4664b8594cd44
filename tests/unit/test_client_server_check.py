"""`Sandbox.merchant_ids` tells a server that is not a mocksrv from a mocksrv that refuses, or from
a proxy that cannot reach one."""

from __future__ import annotations

import pytest
from pytest_httpserver import HTTPServer

from mocksrv.client import ControlPlaneError, NotMocksrv, Sandbox

NO_LIST = "GET /__mock/merchants gave no list of merchants"


@pytest.mark.parametrize(
    ("status", "body", "content_type", "said"),
    [
        (200, '{"merchants": []}', "application/json", NO_LIST),
        (200, "<html></html>", "text/html", NO_LIST),
        (404, "<html>Not Found</html>", "text/html", f"{NO_LIST} (404)"),
        (401, '{"detail": "no"}', "application/json", f"{NO_LIST} (401)"),
    ],
)
def test_an_answer_not_in_mocksrv_s_shape_is_not_a_mocksrv(
    httpserver: HTTPServer, status: int, body: str, content_type: str, said: str
) -> None:
    httpserver.expect_request("/__mock/merchants").respond_with_data(body, status, content_type=content_type)

    with Sandbox(httpserver.url_for(""), "key") as server, pytest.raises(NotMocksrv) as raised:
        server.merchant_ids()

    assert str(raised.value) == said


@pytest.mark.parametrize(
    ("status", "body", "shown"),
    [
        (
            401,
            '{"error": {"type": "invalid_request", "code": "IR_01", "message": "API key not provided"}}',
            "IR_01",
        ),
        (502, "<html>Bad Gateway</html>", "<html>Bad Gateway</html>"),
    ],
    ids=["mocksrv's refusal", "a proxy's 502"],
)
def test_a_refusal_of_mocksrv_or_a_proxy_s_failure_is_a_control_plane_error(
    httpserver: HTTPServer, status: int, body: str, shown: str
) -> None:
    httpserver.expect_request("/__mock/merchants").respond_with_data(body, status)

    with Sandbox(httpserver.url_for(""), "key") as server, pytest.raises(ControlPlaneError) as raised:
        server.merchant_ids()

    assert raised.value.status == status
    assert shown in str(raised.value)


def test_a_list_of_merchants_is_answered(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/__mock/merchants").respond_with_json({"data": ["m1", "m2"], "total_count": 2})

    with Sandbox(httpserver.url_for(""), "key") as server:
        assert server.merchant_ids() == ["m1", "m2"]
