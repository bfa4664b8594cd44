"""The SDK's files as the server sends them: the script, the payment element's page and its files."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from mocksrv.web.sdk import ELEMENT_POLICY

NOT_FOUND = {"error": {"type": "invalid_request", "code": "IR_02", "message": "Unrecognized request URL"}}


@pytest.mark.parametrize("version", ["0.1", "v1", "2025.01.1", "0.27.2-beta_1"])
def test_the_script_is_served_for_any_version(client: FlaskClient, version: str) -> None:
    response = client.get(f"/web/{version}/v1/HyperLoader.js")

    assert response.status_code == 200
    assert response.headers["Content-Type"] == "text/javascript; charset=utf-8"
    assert "window.Hyper = Hyper;" in response.get_data(as_text=True)


def test_the_script_may_be_cached_for_five_minutes_and_revalidated(client: FlaskClient) -> None:
    response = client.get("/web/0.1/v1/HyperLoader.js")

    assert response.headers["Cache-Control"] == "public, max-age=300"
    assert response.headers["ETag"].startswith('"')
    assert response.headers["Last-Modified"].endswith(" GMT")


@pytest.mark.parametrize("name", ["HyperLoader.js", "element.js", "element.css"])
def test_an_if_match_of_another_version_is_412_without_the_file(client: FlaskClient, name: str) -> None:
    path = f"/web/0.1/v1/{name}"
    whole = client.get(path)

    refused = client.get(path, headers={"If-Match": '"another"'})
    matched = client.get(path, headers={"If-Match": whole.headers["ETag"]})

    assert (refused.status_code, refused.headers["Cache-Control"]) == (412, "no-store")
    assert refused.json == {
        "error": {
            "type": "invalid_request",
            "code": "IR_04",
            "message": "The precondition on the request for the URL failed positive evaluation.",
        }
    }
    assert (matched.status_code, matched.get_data()) == (200, whole.get_data())


def test_an_if_match_of_another_version_of_the_element_page_is_a_412_page(client: FlaskClient) -> None:
    refused = client.get("/web/0.1/v1/element", headers={"If-Match": '"another"'})

    assert (refused.status_code, refused.content_type) == (412, "text/html; charset=utf-8")
    assert refused.headers["Cache-Control"] == "no-store"
    assert "<title>Precondition Failed</title>" in refused.get_data(as_text=True)
    assert 'id="card-number"' not in refused.get_data(as_text=True)


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        ("/web/0.1/v1/element.js", "text/javascript; charset=utf-8"),
        ("/web/0.1/v1/element.css", "text/css; charset=utf-8"),
    ],
)
def test_the_elements_files_are_served_with_their_types(
    client: FlaskClient, path: str, content_type: str
) -> None:
    response = client.get(path)

    assert (response.status_code, response.headers["Content-Type"]) == (200, content_type)
    assert response.headers["Cache-Control"] == "public, max-age=300"


def test_the_element_page_loads_its_own_files_under_a_strict_policy(client: FlaskClient) -> None:
    response = client.get("/web/2025.01.1/v1/element")
    html = response.get_data(as_text=True)

    assert (response.status_code, response.headers["Content-Type"]) == (200, "text/html; charset=utf-8")
    assert response.headers["Content-Security-Policy"] == ELEMENT_POLICY
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.headers["Cache-Control"] == "public, max-age=300"
    assert '<link rel="stylesheet" href="/web/2025.01.1/v1/element.css">' in html
    assert '<script src="/web/2025.01.1/v1/element.js" defer></script>' in html


@pytest.mark.parametrize(
    "path",
    [
        "/web/0.1/v1/element",
        "/web/0.1/v1/HyperLoader.js",
        "/web/0.1/v1/element.js",
        "/web/0.1/v1/element.css",
    ],
)
def test_the_sdks_files_and_element_page_are_revalidated_by_their_etag(
    client: FlaskClient, path: str
) -> None:
    etag = client.get(path).headers["ETag"]

    again = client.get(path, headers={"If-None-Match": etag})
    another = client.get(
        "/web/0.2/v1/element" if path.endswith("element") else path, headers={"If-None-Match": '"x"'}
    )

    assert (again.status_code, again.get_data(), again.headers["ETag"]) == (304, b"", etag)
    assert another.status_code == 200


def test_every_input_of_the_element_page_has_a_label(client: FlaskClient) -> None:
    html = client.get("/web/0.1/v1/element").get_data(as_text=True)

    ids = [part.split('"', 1)[0] for part in html.split('<input id="')[1:]]
    ids += [part.split('"', 1)[0] for part in html.split('<select id="')[1:]]
    assert len(ids) == 15
    assert [name for name in ids if f'<label for="{name}">' not in html] == []


def test_the_billing_country_is_chosen_from_iso_codes(client: FlaskClient) -> None:
    html = client.get("/web/0.1/v1/element").get_data(as_text=True)

    assert '<option value="US">United States</option>' in html
    assert '<option value="DE">Germany</option>' in html


@pytest.mark.parametrize("name", ["HyperLoader.js", "element", "element.js", "element.css"])
def test_a_version_segment_that_names_no_release_is_not_found(client: FlaskClient, name: str) -> None:
    response = client.get(f"/web/..%2Fsecret/v1/{name}")

    assert (response.status_code, response.json) == (404, NOT_FOUND)
