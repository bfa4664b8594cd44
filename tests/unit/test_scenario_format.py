"""Scenario files: every problem with its file and line, variables, durations, matchers, -k, and the
reports (masking, JUnit XML) built from results, without a server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from jsonschema import Draft202012Validator

from mocksrv.masking import mask_card_like
from mocksrv.receiver import ReceivedWebhook
from mocksrv.scenario.format import HANG_SECONDS, InvalidScenario, Scenario, Step, parse_duration, schema
from mocksrv.scenario.loading import load_scenario, load_scenarios, scenario_files
from mocksrv.scenario.matchers import body_mismatches, check, lookup, same, status_mismatch
from mocksrv.scenario.report import classname, failure_text, junit_xml, masked, result_line
from mocksrv.scenario.results import NO_BODY, Exchange, Outcome, ScenarioResult
from mocksrv.scenario.selection import KeywordError, keyword_matcher
from mocksrv.scenario.targets import embedded_settings
from mocksrv.scenario.variables import UnknownVariable, substitute
from mocksrv.scenario.webhooks import arrived

REPO_ROOT = Path(__file__).resolve().parents[2]
FILES = "tests/scenario_files"
STEP_KEYS = (
    "request, advance, freeze, set_outcomes, receiver, expect_webhook, wait_webhooks, expect_deliveries, "
    "fault, clear_faults, expect_requests"
)


@pytest.fixture(autouse=True)
def in_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files are named as a user in the repository's root names them."""
    monkeypatch.chdir(REPO_ROOT)


def problems_of(file: str) -> list[str]:
    with pytest.raises(InvalidScenario) as refused:
        load_scenario(file)
    return [str(problem) for problem in refused.value.problems]


# -- every problem, with its file and line ----------------------------------------------------------

INVALID = f"{FILES}/invalid"
PROBLEMS = {
    "bad_method.yaml": [
        f"{INVALID}/bad_method.yaml:10: step 2 (fetch them): request.method: "
        "'FETCH' is not one of ['GET', 'POST', 'PUT', 'DELETE']"
    ],
    "unknown_variable.yaml": [
        f"{INVALID}/unknown_variable.yaml:16: step 2 (capture it): request.body.amount_to_capture: "
        "unknown variable ${nope}"
    ],
    "unknown_step_key.yaml": [
        f"{INVALID}/unknown_step_key.yaml:6: step 2 (take a nap): sleep: unknown step key "
        f"(a step has one of {STEP_KEYS}, and a name)"
    ],
    "unknown_request_key.yaml": [
        f"{INVALID}/unknown_request_key.yaml:8: step 1 (as the root user): request.key: "
        "'root' is not one of ['secret', 'publishable', 'admin', 'none']"
    ],
    "not_yaml.yaml": [
        f"{INVALID}/not_yaml.yaml:5: not valid YAML: expected ',' or '}}', but got '<stream end>'"
    ],
    "several_problems.yaml": [
        f"{INVALID}/several_problems.yaml:1: 'description' is a required property",
        f"{INVALID}/several_problems.yaml:2: tags: 'cards' is not of type array",
        f"{INVALID}/several_problems.yaml:4: merchant.rate_limit: -1 is less than the minimum of 0",
        f"{INVALID}/several_problems.yaml:5: merchant.webhook: "
        "unknown key (one of rate_limit, outcomes, receiver)",
        f"{INVALID}/several_problems.yaml:7: step 1 (advance): advance: "
        "'10 seconds' is not a duration such as 500ms, 10s, 5m, 2h or 7d",
        f"{INVALID}/several_problems.yaml:8: step 2: expect: expect goes with a request step",
        f"{INVALID}/several_problems.yaml:9: step 3 (receiver): receiver: recover takes no other key",
        f"{INVALID}/several_problems.yaml:10: step 4 (expect_webhook): expect_webhook: "
        "'event_type' is a required property",
        f"{INVALID}/several_problems.yaml:10: step 4 (expect_webhook): expect_webhook.attempt: "
        "0 is less than the minimum of 1",
    ],
    "no_receiver.yaml": [
        f"{INVALID}/no_receiver.yaml:5: step 1 (the webhook): expect_webhook: "
        "needs a webhook receiver: give the scenario merchant.receiver",
        f"{INVALID}/no_receiver.yaml:6: step 2 (request): request.body.url: "
        "unknown variable ${webhook_url}",
    ],
    "duplicate_key.yaml": [
        f"{INVALID}/duplicate_key.yaml:10: step 1 (pay): expect.status: duplicate key (first at line 9)"
    ],
    "bad_pattern.yaml": [
        f"{INVALID}/bad_pattern.yaml:6: step 1 (request): expect.body.data.matches: "
        "not a regular expression: unterminated character set at position 1"
    ],
    "empty.yaml": [f"{INVALID}/empty.yaml:1: empty: a scenario is a map with name, description, steps"],
    "not_a_map.yaml": [f"{INVALID}/not_a_map.yaml:1: 'just text' is not of type object"],
}


@pytest.mark.parametrize("name", list(PROBLEMS))
def test_a_malformed_file_is_refused_with_every_problem_at_its_line(name: str) -> None:
    assert problems_of(f"{INVALID}/{name}") == PROBLEMS[name]


def test_every_malformed_file_of_the_tests_has_its_problems_listed() -> None:
    assert sorted(Path(file).name for file in scenario_files([INVALID])) == sorted(PROBLEMS)


def test_a_file_that_is_not_utf_8_is_one_problem_at_the_line_of_its_first_bad_byte(tmp_path: Path) -> None:
    file = tmp_path / "latin.yaml"
    file.write_bytes(b"name: n\ndescription: d\nsteps:\n  - advance: 1s # caf\xe9\n")

    assert problems_of(str(file)) == [f"{file}:4: not UTF-8 text: byte 0xe9"]


def test_a_file_that_cannot_be_read_is_one_problem_without_a_line() -> None:
    assert problems_of(f"{FILES}/absent.yaml") == [
        f"{FILES}/absent.yaml: cannot read: no such file or directory"
    ]


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "scenario.yaml"
    path.write_text(text)
    return str(path)


STEP_HEAD = "name: n\ndescription: d\nsteps:\n"


MATCHER_NAMES = "equals, contains, matches, exists, absent, one_of, greater_than, less_than"
DELIVERY_STATES = "['pending', 'retrying', 'delivered', 'failed', 'no_endpoint']"
GET = "  - request: {method: GET, path: /x}\n"
# Steps of a file, and its one problem after `file:`.
STEP_PROBLEMS = [
    ("  - {}\n", f"4: step 1: no step key (one of {STEP_KEYS})"),
    ("  - fault: {match: {path: /payments}}\n", "4: step 1 (fault): fault: 'effect' is a required property"),
    (
        "  - fault: {effect: {type: explode}}\n",
        (
            "4: step 1 (fault): fault.effect.type: 'explode' is not one of "
            "['error', 'rate_limit', 'latency', 'drop', 'truncate', 'malformed', 'hang']"
        ),
    ),
    # Refused by the control plane, as POST /__mock/faults would refuse them.
    (
        "  - fault: {effect: {type: truncate}, timing: before}\n",
        "4: step 1 (fault): fault.timing: a truncate fault changes an answer, so it comes after",
    ),
    (
        "  - fault:\n      effect: {type: latency}\n",
        "5: step 1 (fault): fault.effect.milliseconds: a latency fault names its milliseconds",
    ),
    (
        "  - fault: {effect: {type: error, status: 404}}\n",
        "4: step 1 (fault): fault.effect.status: error faults answer with: 500, 502, 503, 504",
    ),
    (
        "  - expect_requests: {path: /payments}\n",
        "4: step 1 (expect_requests): expect_requests: 'count' is a required property",
    ),
    (
        "  - name: both\n    advance: 1s\n    freeze: true\n",
        "4: step 1 (both): more than one step key: advance, freeze",
    ),
    ("  - save: {x: y}\n", "4: step 1: save: save goes with a request step"),
    (
        "  - receiver: {hang: true, status: 500}\n",
        "4: step 1 (receiver): receiver: hang takes no status or delay",
    ),
    (
        "  - wait_webhooks: {timeout: 5}\n",
        "4: step 1 (wait_webhooks): wait_webhooks.timeout: unknown key: takes none",
    ),
    (
        "  - request: {method: GET, path: payments}\n",
        "4: step 1 (request): request.path: 'payments' is not a path starting with /",
    ),
    (
        GET + "    save: {9lives: a}\n",
        "5: step 1 (request): save.9lives: "
        "not a variable name (letters, digits and _, not starting with a digit)",
    ),
    (
        GET + "    expect: {status: 700}\n",
        "5: step 1 (request): expect.status: 700 is greater than the maximum of 599",
    ),
    (
        GET + "    expect: {status: [200, ok]}\n",
        "5: step 1 (request): expect.status.1: 'ok' is not of type integer",
    ),
    (
        GET + "    expect: {body: {a: {equals: 1, is: 2}}}\n",
        f"5: step 1 (request): expect.body.a.is: unknown key (one of {MATCHER_NAMES})",
    ),
    (
        "  - expect_deliveries: {event_type: x, status: lost}\n",
        f"4: step 1 (expect_deliveries): expect_deliveries.status: 'lost' is not one of {DELIVERY_STATES}",
    ),
    (
        "  - request: {method: GET, path: '/p/${id}'}\n    save: {id: payment_id}\n",
        "4: step 1 (request): request.path: unknown variable ${id}",
    ),
    (
        "  - request: {method: GET, path: '/p/${1x}'}\n",
        "4: step 1 (request): request.path: unknown variable ${1x}",
    ),
    (
        "  - advance: 10\n",
        "4: step 1 (advance): advance: 10 is not a duration such as 500ms, 10s, 5m, 2h or 7d",
    ),
    ("  - freeze: true\n  -\n", "5: step 2: null is not of type object"),
    # What YAML can write and JSON cannot carry: each would fail only as the step runs.
    (
        "  - request: {method: POST, path: /customers, body: {amount: 0100}}\n",
        "4: 0100 is read as 64 (base 8): write the number you mean, or quote it",
    ),
    (
        "  - request: {method: POST, path: /customers, body: {address: {country: NO}}}\n",
        "4: NO is read as false: write true or false, or quote it for text",
    ),
    (
        "  - freeze: on\n",
        "4: on is read as true: write true or false, or quote it for text",
    ),
    (
        GET + "    expect: {body: {1: x}}\n",
        "5: step 1 (request): expect.body.1: the key 1 is not text: quote it",
    ),
    (
        "  - request: {method: POST, path: /customers, body: {name: !!binary aGk=}}\n",
        "4: step 1 (request): request.body.name: b'hi' is not JSON: write text, a number, a list or a map",
    ),
    (
        "  - request: {method: POST, path: /customers, body: {amount: .nan}}\n",
        "4: step 1 (request): request.body.amount: nan is not a JSON number",
    ),
    (
        '  - request: {method: POST, path: /customers, body: {name: "a\\udc80"}}\n',
        "4: step 1 (request): request.body.name: holds a lone surrogate (\\ud800 to \\udfff), "
        "which UTF-8 cannot write",
    ),
    (
        "  - request: {method: GET, path: /x}\n    expect: {answer: none, status: 200}\n",
        "5: step 1 (request): expect.status: an answer none has no status to expect",
    ),
    (
        "  - request: {method: GET, path: /x}\n    expect: {answer: cut_short, body: {a: 1}}\n",
        "5: step 1 (request): expect.body: an answer cut_short has no body to expect",
    ),
    (
        "  - request: {method: GET, path: /x}\n    expect: {answer: none}\n    save: {a: b}\n",
        "6: step 1 (request): save: an answer none has no value to save",
    ),
    (
        "  - request: {method: GET, path: /x}\n    expect: {answer: half}\n",
        "5: step 1 (request): expect.answer: 'half' is not one of ['whole', 'none', 'cut_short']",
    ),
    (
        "  - request: {method: GET, path: /x, timeout: soon}\n",
        "4: step 1 (request): request.timeout: 'soon' is not a duration such as 500ms, 10s, 5m, 2h or 7d",
    ),
    (
        "  - request: {method: GET, path: /x, timeout: 0s}\n",
        "4: step 1 (request): request.timeout: 0s is not a timeout of more than 0 and at most an hour",
    ),
    (
        "  - request: {method: GET, path: /x, timeout: 2h}\n",
        "4: step 1 (request): request.timeout: 2h is not a timeout of more than 0 and at most an hour",
    ),
    (
        '  - request: {method: GET, path: /x, headers: {X-A: "a\\r\\nb"}}\n',
        "4: step 1 (request): request.headers.X-A: a header's value is one line: no CR or LF",
    ),
    # What no request can send: each would end the run in an error, not a result.
    (
        '  - request: {method: GET, path: /x, headers: {X-Note: "\U0001f4a5"}}\n',
        "4: step 1 (request): request.headers.X-Note: a header's value is Latin-1 text: "
        "'\U0001f4a5' cannot be sent",
    ),
    (
        '  - request: {method: GET, path: /x, headers: {X-Note: "a\\0b"}}\n',
        "4: step 1 (request): request.headers.X-Note: a header's value holds no control character "
        "but the tab: '\\x00' cannot be sent",
    ),
    (
        '  - request: {method: GET, path: /x, headers: {X-A: " x"}}\n',
        "4: step 1 (request): request.headers.X-A: "
        "a header's value does not start or end with a space or a tab: HTTP drops them",
    ),
    (
        '  - request: {method: GET, path: /x, headers: {X-A: "x\t"}}\n',
        "4: step 1 (request): request.headers.X-A: "
        "a header's value does not start or end with a space or a tab: HTTP drops them",
    ),
    (
        "  - request:\n      method: GET\n      path: /x\n      headers:\n"
        '        X-A: a\n        "bad header:": x\n',
        "9: step 1 (request): request.headers: "
        "'bad header:' is not a header name: letters, digits and !#$%&'*+-.^_`|~ only",
    ),
    (
        '  - request: {method: GET, path: /x, headers: {"": x}}\n',
        "4: step 1 (request): request.headers: "
        "'' is not a header name: letters, digits and !#$%&'*+-.^_`|~ only",
    ),
    (
        "  - request: {method: GET, path: /x}\n    expect: {status: 200.0}\n",
        "5: step 1 (request): expect.status: 200.0 is not of type integer or array",
    ),
    (
        "  - clear_faults: false\n",
        "4: step 1 (clear_faults): clear_faults: false is not true",
    ),
    (
        '  - request: "${x}"\n',
        "4: step 1 (request): request: '${x}' is not of type object",
    ),
    (
        '  - request: {method: GET, path: /x}\n    expect: "${x}"\n',
        "5: step 1 (request): expect: '${x}' is not of type object",
    ),
    (
        "  - advance: 3651d\n",
        "4: step 1 (advance): advance: 3651d is longer than 3650d, the most a clock moves at once",
    ),
    (
        '  - name: "pay 4111111111111111\\n at once"\n    advance: 1s\n    freeze: true\n',
        "4: step 1 (pay ************1111\\n at once): more than one step key: advance, freeze",
    ),
]


@pytest.mark.parametrize(("steps", "problem"), STEP_PROBLEMS)
def test_a_step_problem_names_the_step_and_the_field(tmp_path: Path, steps: str, problem: str) -> None:
    file = write(tmp_path, STEP_HEAD + steps)

    assert problems_of(file) == [f"{file}:{problem}"]


def test_a_merchants_rate_limit_is_a_whole_number_the_control_plane_takes(tmp_path: Path) -> None:
    file = write(
        tmp_path, "name: n\ndescription: d\nmerchant: {rate_limit: 9223372036854775808}\nsteps:\n" + GET
    )

    assert problems_of(file) == [
        f"{file}:3: merchant.rate_limit: 9223372036854775808 is greater than the maximum of "
        "9223372036854775807"
    ]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("---\n", "1: empty: a scenario is a map with name, description, steps"),
        (
            STEP_HEAD + "  - request: &loop {method: GET, path: /x, body: [*loop]}\n",
            "4: an alias within its own anchor: JSON cannot carry it",
        ),
        (
            STEP_HEAD + GET + "    expect: {body: {a: " + "[" * 70 + "]" * 70 + "}}\n",
            "5: nested more than 64 deep",
        ),
        (
            STEP_HEAD
            + "  - request:\n      method: GET\n      path: /x\n      body:\n"
            + "".join(f"{' ' * (8 + level)}- \n" for level in range(3000)),
            "68: nested more than 64 deep",
        ),
        (
            STEP_HEAD + '  - request: {method: POST, path: /x, body: {note: "a\x7fb"}}\n',
            "4: not valid YAML: unacceptable character #x007f: special characters are not allowed",
        ),
        (
            STEP_HEAD + GET + '    expect: {body: {note: "a\x00b"}}\n',
            "5: not valid YAML: unacceptable character #x0000: special characters are not allowed",
        ),
        (
            "name: n\ndescription: d\nvariables:\n  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
            + "".join(f"  a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 6))
            + "steps:\n"
            + GET,
            "8: more than 100,000 values once its aliases are read",
        ),
    ],
    ids=[
        "a lone document marker",
        "an alias within its anchor",
        "70 deep",
        "3000 deep",
        "a raw DEL",
        "a raw NUL",
        "aliases of aliases",
    ],
)
def test_a_file_too_deep_too_large_holding_itself_or_a_raw_control_character_is_one_problem_at_its_line(
    tmp_path: Path, text: str, problem: str
) -> None:
    file = write(tmp_path, text)

    assert problems_of(file) == [f"{file}:{problem}"]


def test_every_number_or_word_yaml_reads_otherwise_and_every_key_given_twice_is_reported(
    tmp_path: Path,
) -> None:
    file = write(
        tmp_path,
        STEP_HEAD + "  - request: {method: POST, path: /x, body: {a: 0100, b: yes, c: '1:30'}}\n"
        "  - freeze: on\n"
        "  - request: {method: GET, path: /x}\n    save: {NO: a, id: b, id: c}\n",
    )

    assert problems_of(file) == [
        f"{file}:4: 0100 is read as 64 (base 8): write the number you mean, or quote it",
        f"{file}:4: yes is read as true: write true or false, or quote it for text",
        f"{file}:5: on is read as true: write true or false, or quote it for text",
        f"{file}:7: NO is read as false: write true or false, or quote it for text",
        f"{file}:7: step 3 (request): save.id: duplicate key (first at line 7)",
    ]


def test_what_a_step_means_is_checked_in_each_step_the_schema_accepted(tmp_path: Path) -> None:
    file = write(
        tmp_path,
        "name: n\ntags: cards\nmerchant: {rate_limit: -1}\nvariables: {a: '${nope}'}\nsteps:\n"
        "  - request: {method: FETCH, path: /x}\n    save: {id: payment_id}\n"
        "  - request: {method: GET, path: '/p/${id}/${other}'}\n"
        "  - expect_webhook: {event_type: x, attempt: 0}\n"
        "  - expect_webhook: {event_type: x}\n",
    )

    assert problems_of(file) == [
        f"{file}:1: 'description' is a required property",
        f"{file}:2: tags: 'cards' is not of type array",
        f"{file}:3: merchant.rate_limit: -1 is less than the minimum of 0",
        f"{file}:4: variables.a: unknown variable ${{nope}}",
        f"{file}:6: step 1 (request): request.method: 'FETCH' is not one of ['GET', 'POST', 'PUT', 'DELETE']",
        f"{file}:8: step 2 (request): request.path: unknown variable ${{other}}",
        f"{file}:9: step 3 (expect_webhook): expect_webhook.attempt: 0 is less than the minimum of 1",
        f"{file}:10: step 4 (expect_webhook): expect_webhook: "
        "needs a webhook receiver: give the scenario merchant.receiver",
    ]


def test_tags_and_top_level_keys_are_checked(tmp_path: Path) -> None:
    file = write(
        tmp_path, "name: n\ndescription: d\ntags: [ok, two words]\nstep: []\nsteps: [{freeze: true}]\n"
    )

    assert problems_of(file) == [
        f"{file}:3: tags.1: 'two words' is not a tag: one word of letters, digits, _ . and -",
        f"{file}:4: step: unknown key (one of name, description, tags, merchant, variables, steps)",
    ]


def test_a_key_a_step_merges_in_is_reported_at_the_anchor_and_its_own_at_its_own_line(tmp_path: Path) -> None:
    file = write(
        tmp_path,
        "name: n\ndescription: d\nvariables:\n  base: &base {method: GET, path: x}\n"
        "steps:\n  - request:\n      <<: *base\n      method: FETCH\n",
    )

    assert problems_of(file) == [
        f"{file}:4: step 1 (request): request.path: 'x' is not a path starting with /",
        f"{file}:8: step 1 (request): request.method: 'FETCH' is not one of ['GET', 'POST', 'PUT', 'DELETE']",
    ]


def test_a_name_or_a_receiver_of_the_merchant_is_checked_as_a_steps_is(tmp_path: Path) -> None:
    merchant = "merchant:\n  receiver: {delay: 2h}\n"
    file = write(tmp_path, 'name: "n\\ud800"\ndescription: d\n' + merchant + "steps: [{freeze: true}]\n")

    assert problems_of(file) == [
        f"{file}:1: name: holds a lone surrogate (\\ud800 to \\udfff), which UTF-8 cannot write",
    ]
    steps = "steps:\n  - receiver: {status: 500, delay: 1000000d}\n  - receiver: {delay: 1h}\n"
    file = write(tmp_path, "name: n\ndescription: d\n" + merchant + steps)

    hang = "is longer than an hour: a receiver that never answers is hang: true"
    assert problems_of(file) == [
        f"{file}:4: merchant.receiver.delay: 2h {hang}",
        f"{file}:6: step 1 (receiver): receiver.delay: 1000000d {hang}",
    ]


def test_the_starting_variables_may_name_only_the_built_in_ones(tmp_path: Path) -> None:
    variables = "variables:\n  key: 'k-${run_id}'\n  other: '${key}'\n"
    file = write(tmp_path, "name: n\ndescription: d\n" + variables + "steps: [{freeze: true}]\n")

    assert problems_of(file) == [f"{file}:5: variables.other: unknown variable ${{key}}"]


def test_a_saved_variable_is_known_from_the_next_step_on(tmp_path: Path) -> None:
    steps = (
        "  - request: {method: GET, path: /payments/list}\n    save: {first: data.0.payment_id}\n"
        "  - request: {method: GET, path: '/payments/${first}', headers: {X-Run: '${run_id}'}}\n"
    )
    scenario = load_scenario(write(tmp_path, STEP_HEAD + steps))

    assert [step.kind for step in scenario.steps] == ["request", "request"]


def test_every_scenario_file_made_to_run_is_valid() -> None:
    scenarios, problems = load_scenarios(scenario_files([f"{FILES}/passing", f"{FILES}/failing"]))

    assert problems == []
    assert len(scenarios) == 7


def test_a_valid_file_becomes_a_scenario_with_numbered_steps() -> None:
    scenario = load_scenario(f"{FILES}/passing/outcomes_decide_the_payment.yaml")

    assert (scenario.name, scenario.tags, scenario.receiver) == (
        "The merchant's outcome table decides a payment",
        ("outcomes", "declines"),
        {},
    )
    assert scenario.merchant["rate_limit"] == 100
    assert [(step.number, step.kind, step.line, step.label) for step in scenario.steps] == [
        (1, "freeze", 14, "step 1 (freeze)"),
        (2, "request", 15, "step 2 (a success card is declined)"),
        (3, "set_outcomes", 38, "step 3 (set_outcomes)"),
        (4, "request", 41, "step 4 (the processing card waits)"),
        (5, "advance", 51, "step 5 (advance)"),
        (6, "expect_webhook", 52, "step 6 (settled when the ten seconds passed)"),
        (7, "request", 54, "step 7 (and has settled)"),
        (8, "request", 57, "step 8 (it is the only payment)"),
    ]
    # `<<: *payment` merges the first body into the second, whose own card wins.
    body = scenario.steps[3].spec["request"]["body"]
    assert (body["amount"], body["payment_method_data"]["card"]["card_number"]) == (1000, "4000000000000077")


def test_a_number_of_a_query_or_a_header_is_sent_as_it_is_written(tmp_path: Path) -> None:
    steps = (
        "  - request:\n      method: GET\n      path: /x\n"
        "      query: &query {price: 12.50, big: 100000000000000000000.0, whole: 100000000000}\n"
        "      headers: {X-Rate: 1.0e+3, X-Flag: true, X-Note: a 12.50}\n"
        "  - request: {method: GET, path: /x, query: {<<: *query, price: 7.10}}\n"
    )
    scenario = load_scenario(write(tmp_path, STEP_HEAD + steps))

    first, second = (step.spec["request"] for step in scenario.steps)
    assert first["query"] == {"price": "12.50", "big": "100000000000000000000.0", "whole": "100000000000"}
    assert first["headers"] == {"X-Rate": "1.0e+3", "X-Flag": True, "X-Note": "a 12.50"}
    assert second["query"] == {"price": "7.10", "big": "100000000000000000000.0", "whole": "100000000000"}


def test_a_date_stays_the_text_it_was_written_as(tmp_path: Path) -> None:
    steps = "  - request: {method: POST, path: /x, body: {due: 2026-01-22, at: 2026-01-22T18:43:56Z}}\n"
    scenario = load_scenario(write(tmp_path, STEP_HEAD + steps))

    assert scenario.steps[0].spec["request"]["body"] == {"due": "2026-01-22", "at": "2026-01-22T18:43:56Z"}


def test_true_and_false_are_read_in_any_case_and_a_quoted_no_is_text(tmp_path: Path) -> None:
    steps = "  - freeze: True\n  - request: {method: POST, path: /x, body: {a: FALSE, country: 'NO'}}\n"
    scenario = load_scenario(write(tmp_path, STEP_HEAD + steps))

    assert scenario.steps[0].spec["freeze"] is True
    assert scenario.steps[1].spec["request"]["body"] == {"a": False, "country": "NO"}


def test_directories_are_searched_for_yaml_files_at_any_depth_in_order(tmp_path: Path) -> None:
    for name in ("b.yml", "a.yaml", "deeper/c.yaml", "notes.txt"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("")
    root = str(tmp_path)

    assert scenario_files([root, f"{root}/a.yaml"]) == [
        f"{root}/a.yaml",
        f"{root}/b.yml",
        f"{root}/deeper/c.yaml",
    ]
    with pytest.raises(FileNotFoundError, match="nowhere"):
        scenario_files(["nowhere"])


def test_linked_folders_are_searched_once_and_a_file_named_twice_is_taken_once(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "s.yaml").write_text("")
    root = tmp_path / "qa"
    root.mkdir()
    (root / "a.yaml").write_text("")
    (root / "linked").symlink_to(shared)
    (root / "loop").symlink_to(root)  # a folder that links back above itself

    found = scenario_files([str(root), f"{root}/./a.yaml", str(shared / "s.yaml")])

    assert found == [f"{root}/a.yaml", f"{root}/linked/s.yaml"]


def test_a_folder_reached_twice_keeps_the_name_that_comes_first(tmp_path: Path) -> None:
    for name in ("b", "d", "f"):  # created in an order unlike the names', as a directory may list them
        (tmp_path / name).mkdir()
        (tmp_path / name / "s.yaml").write_text("")
    (tmp_path / "a").symlink_to(tmp_path / "d")
    (tmp_path / "e").symlink_to(tmp_path / "b")

    assert scenario_files([str(tmp_path)]) == [f"{tmp_path}/{name}/s.yaml" for name in ("a", "b", "f")]


def test_the_shipped_schema_is_a_valid_json_schema() -> None:
    Draft202012Validator.check_schema(schema())
    assert schema()["required"] == ["name", "description", "steps"]


# -- durations and variables --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("500ms", 0.5), ("10s", 10), ("5m", 300), ("2h", 7200), ("7d", 604800), ("1.5h", 5400), ("0s", 0)],
)
def test_a_duration_is_read_in_seconds(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["10", "10 s", "s", "-1s", "1w", "1h30m", ""])
def test_anything_else_is_not_a_duration(text: str) -> None:
    with pytest.raises(ValueError, match="is not a duration such as 500ms, 10s, 5m, 2h or 7d"):
        parse_duration(text)


VARIABLES = {"amount": 1000, "payment_id": "pay_1", "flag": True, "nothing": None}


@pytest.mark.parametrize(
    ("value", "substituted"),
    [
        ("${amount}", 1000),
        ("${flag}", True),
        ("/payments/${payment_id}/capture", "/payments/pay_1/capture"),
        ("${amount} cents, ${flag}, ${nothing}", "1000 cents, true, null"),
        ("$${amount} stays", "${amount} stays"),
        ({"a": ["${amount}", {"b": "${payment_id}"}], "c": 5}, {"a": [1000, {"b": "pay_1"}], "c": 5}),
    ],
)
def test_variables_are_substituted_in_every_string(value: Any, substituted: Any) -> None:
    assert substitute(value, VARIABLES) == substituted


def test_an_unknown_variable_is_named() -> None:
    with pytest.raises(UnknownVariable) as unknown:
        substitute({"path": "/x/${nope}"}, VARIABLES)

    assert str(unknown.value) == "unknown variable ${nope}"


# -- matchers ------------------------------------------------------------------------------------------

UNCLOSED = "missing ), unterminated subpattern at position 0"
ANSWER = {"status": "failed", "amount": 1000, "data": [{"id": "a"}, {"id": "b"}], "next_action": None}


@pytest.mark.parametrize(
    ("path", "found"),
    [
        ("status", (True, "failed")),
        ("data.1.id", (True, "b")),
        ("data.2.id", (False, None)),
        ("data.x", (False, None)),
        ("next_action", (True, None)),
        ("status.more", (False, None)),
    ],
)
def test_a_dotted_path_finds_a_value(path: str, found: tuple[bool, Any]) -> None:
    assert lookup(ANSWER, path) == found


@pytest.mark.parametrize(
    ("matcher", "argument", "found", "value", "mismatch"),
    [
        ("equals", "succeeded", True, "succeeded", None),
        ("equals", "succeeded", True, "failed", 'expected "succeeded", got "failed"'),
        ("equals", 1, True, True, "expected 1, got true"),
        ("equals", "1000", True, 1000, 'expected "1000", got 1000'),
        ("equals", 10, True, 10.0, None),
        ("equals", {"a": [1]}, True, {"a": [1]}, None),
        ("equals", "x", False, None, 'expected "x", got nothing (no such key)'),
        ("contains", "declin", True, "card declined", None),
        ("contains", "ok", True, ["ok", "no"], None),
        ("contains", {"a": 1}, True, {"a": 1, "b": 2}, None),
        ("contains", "x", True, "abc", 'expected a value containing "x", got "abc"'),
        ("matches", "^pay_", True, "pay_123", None),
        ("matches", "^pay_", True, 5, 'expected text matching "^pay_", got 5'),
        ("matches", "(", True, "x", f'"(" is not a regular expression: {UNCLOSED}'),
        ("exists", True, True, "x", None),
        ("exists", True, True, None, "expected a value, got null"),
        ("exists", False, False, None, None),
        ("absent", True, False, None, None),
        ("absent", True, True, None, None),
        ("absent", True, True, {}, "expected no value (missing or null), got {}"),
        ("absent", False, True, 0, None),
        ("one_of", ["a", "b"], True, "b", None),
        ("one_of", ["a", "b"], True, "c", 'expected one of ["a", "b"], got "c"'),
        ("greater_than", 0, True, 5, None),
        ("greater_than", 0, True, 0, "expected a number greater than 0, got 0"),
        ("greater_than", 0, True, True, "expected a number greater than 0, got true"),
        ("less_than", 100, True, 99.5, None),
        ("less_than", 100, True, "50", 'expected a number less than 100, got "50"'),
        ("less_than", 100, False, None, "expected a number less than 100, got nothing (no such key)"),
    ],
)
def test_a_matcher_holds_or_says_what_it_expected_and_got(
    matcher: str, argument: Any, found: bool, value: Any, mismatch: str | None
) -> None:
    assert check(matcher, argument, found, value) == mismatch


def test_a_body_expectation_lists_every_mismatch_with_its_path() -> None:
    expected = {
        "status": "succeeded",
        "amount": {"greater_than": 0, "less_than": 500},
        "data.0.id": {"one_of": ["a", "z"]},
        "next_action": {"absent": True},
        "client_secret": {"exists": True},
        "data": {"id": "a"},  # a map of plain keys is a value to equal, not a matcher
    }

    assert body_mismatches(expected, ANSWER) == [
        'body.status: expected "succeeded", got "failed"',
        "body.amount: expected a number less than 500, got 1000",
        "body.client_secret: expected a value, got nothing (no such key)",
        'body.data: expected {"id": "a"}, got [{"id": "a"}, {"id": "b"}]',
    ]


@pytest.mark.parametrize(
    ("expected", "status", "mismatch"),
    [
        (None, 204, None),
        (None, 404, "status: expected a 2xx status, got 404"),
        (200, 200, None),
        (200, 400, "status: expected 200, got 400"),
        ([200, 201], 201, None),
        ([200, 201], 500, "status: expected one of 200, 201, got 500"),
    ],
)
def test_the_status_is_the_one_expected_or_any_2xx(expected: Any, status: int, mismatch: str | None) -> None:
    assert status_mismatch(expected, status) == mismatch


def test_equality_is_typed_as_json_is() -> None:
    assert (
        same(1, 1.0),
        same(0, False),
        same("a", "a"),
        same([1, True], [1, True]),
        same({"a": 1}, {"a": 2}),
    ) == (
        True,
        False,
        True,
        True,
        False,
    )


# -- -k -----------------------------------------------------------------------------------------------


def scenario(name: str, file: str, tags: tuple[str, ...]) -> Scenario:
    return Scenario(file=file, name=name, description="d", tags=tags, merchant={}, variables={}, steps=())


CATALOGUE = [
    scenario("A declined card fails", "scenarios/cards/declined.yaml", ("cards", "declines")),
    scenario("A refund succeeds", "scenarios/refunds/basic.yaml", ("refunds",)),
    scenario("Webhooks are retried", "scenarios/webhooks/retry.yaml", ("webhooks", "slow")),
]


@pytest.mark.parametrize(
    ("expression", "chosen"),
    [
        ("refund", ["A refund succeeds"]),
        ("DECLINED", ["A declined card fails"]),
        ("cards/", ["A declined card fails"]),
        ("slow", ["Webhooks are retried"]),
        ("not slow", ["A declined card fails", "A refund succeeds"]),
        ("cards or refunds", ["A declined card fails", "A refund succeeds"]),
        ("a and not (refund or slow)", ["A declined card fails"]),
        ("not not slow", ["Webhooks are retried"]),
        ('"card fails"', ["A declined card fails"]),
        ("webhooks and declines", []),
    ],
)
def test_k_chooses_by_name_file_or_tag(expression: str, chosen: list[str]) -> None:
    chooses = keyword_matcher(expression)

    assert [item.name for item in CATALOGUE if chooses(item)] == chosen


@pytest.mark.parametrize(
    ("expression", "reason"),
    [
        ("", "an empty expression"),
        ("a and", "the expression ends too soon"),
        ("(a or b", "the expression ends too soon"),
        ("a b", "unexpected 'b'"),
        ("or a", "unexpected 'or'"),
        ("'a", 'a quote is not closed in "\'a"'),
    ],
)
def test_k_refuses_what_it_cannot_read(expression: str, reason: str) -> None:
    with pytest.raises(KeywordError) as refused:
        keyword_matcher(expression)

    assert str(refused.value) == reason


@pytest.mark.parametrize(
    "expression",
    ["not " * 62 + "(((slow)))", "not " * 1000 + "slow", "(" * 3000 + "slow" + ")" * 3000],
    ids=["65 deep", "1000 nots", "3000 parentheses"],
)
def test_k_refuses_an_expression_nested_more_than_64_deep(expression: str) -> None:
    with pytest.raises(KeywordError) as refused:
        keyword_matcher(expression)

    assert str(refused.value) == "nested more than 64 deep"


def test_k_reads_an_expression_nested_64_deep() -> None:
    chooses = keyword_matcher("not " * 62 + "((slow))")

    assert [item.name for item in CATALOGUE if chooses(item)] == ["Webhooks are retried"]


# -- reports ------------------------------------------------------------------------------------------


def test_card_numbers_account_numbers_and_cvcs_are_masked() -> None:
    body = {
        "payment_method_data": {
            "card": {"card_number": "4242424242424242", "card_cvc": "123", "cvc_check": "pass"}
        },
        "payout": {"bank_account_number": "000123456789", "iban": "DE89370400440532013000", "number": 7},
        "phone": {"number": "4155550100"},
        "note": "card 4000000000000002 declined; order 12345678901 is too short for a card",
    }

    assert masked(body) == {
        "payment_method_data": {
            "card": {"card_number": "************4242", "card_cvc": "***", "cvc_check": "pass"}
        },
        "payout": {"bank_account_number": "********6789", "iban": "******************3000", "number": 7},
        "phone": {"number": "4155550100"},
        "note": "card ************0002 declined; order 12345678901 is too short for a card",
    }


def test_text_keeps_the_last_four_digits_of_a_card_number() -> None:
    assert mask_card_like("expected 4111111111111111, got 4242 4242 4242 4241 (id 12345)") == (
        "expected ************1111, got ************4241 (id 12345)"
    )


SCENARIO = scenario("A declined card fails", "scenarios/cards/declined.yaml", ("cards",))
EXCHANGE = Exchange(
    method="POST",
    path="/payments",
    query={"expand": "true"},
    body={
        "amount": 1000,
        "payment_method_data": {"card": {"card_number": "4000000000000002", "card_cvc": "123"}},
    },
    status=200,
    answer={"status": "failed", "error_code": "card_declined"},
    answer_is_json=True,
)
FAILED = ScenarioResult(
    SCENARIO,
    Outcome.FAILED,
    0.314,
    'step 2 (pay): body.status: expected "succeeded", got "failed"',
    "",
    EXCHANGE,
)


def test_a_failure_shows_the_step_the_request_and_the_answer_masked() -> None:
    assert result_line(FAILED) == "FAIL A declined card fails (scenarios/cards/declined.yaml) 0.31s"
    assert failure_text(FAILED) == "\n".join(
        [
            'step 2 (pay): body.status: expected "succeeded", got "failed"',
            "request: POST /payments?expand=true",
            "  {",
            '    "amount": 1000,',
            '    "payment_method_data": {',
            '      "card": {',
            '        "card_number": "************0002",',
            '        "card_cvc": "***"',
            "      }",
            "    }",
            "  }",
            "answer: 200",
            "  {",
            '    "status": "failed",',
            '    "error_code": "card_declined"',
            "  }",
        ]
    )


def test_a_name_keeps_its_printable_characters_and_escapes_only_the_others() -> None:
    step = Step(1, "Paiement refus\u00e9\t\U0001f4b3", "request", {}, 4)
    named = scenario("Paiement refus\u00e9\n\U0001f4b3", "scenarios/cards/named.yaml", ())
    result = ScenarioResult(named, Outcome.FAILED, 0.1, f"{step.label}: status: expected 200, got 402")

    [case] = ElementTree.fromstring(junit_xml([result], 0.1))[0]

    assert result_line(result) == "FAIL Paiement refus\u00e9\\n\U0001f4b3 (scenarios/cards/named.yaml) 0.10s"
    assert case[0].attrib["message"] == (
        "step 1 (Paiement refus\u00e9\\t\U0001f4b3): status: expected 200, got 402"
    )


def test_a_scenarios_name_a_steps_name_and_the_values_a_failure_quotes_are_masked() -> None:
    step = Step(1, "pay with 4000000000000002 and card_cvc=987", "request", {}, 4)
    reasons = body_mismatches(
        {"payment_method_data.card.card_cvc": "123", "note": {"contains": "cvc=555 at pay%5F1"}},
        {"payment_method_data": {"card": {"card_cvc": "987"}}, "note": "none"},
    )
    named = scenario("pays with 4111111111111111", "scenarios/cards/named.yaml", ())
    result = ScenarioResult(named, Outcome.FAILED, 0.1, f"{step.label}: {'; '.join(reasons)}")

    [case] = ElementTree.fromstring(junit_xml([result], 0.1))[0]

    assert result_line(result) == "FAIL pays with ************1111 (scenarios/cards/named.yaml) 0.10s"
    assert case.attrib["name"] == "pays with ************1111"
    assert failure_text(result) == (
        "step 1 (pay with ************0002 and card_cvc=***): "
        'body.payment_method_data.card.card_cvc: expected "***", got "***"; '
        'body.note: expected a value containing "cvc=*** at pay%5F1", got "none"'
    )


def test_a_request_without_a_body_and_an_answer_that_is_not_json_are_shown_as_they_are() -> None:
    exchange = Exchange("GET", "/health", {}, NO_BODY, 502, "Bad Gateway", answer_is_json=False)
    result = ScenarioResult(
        SCENARIO, Outcome.FAILED, 0.1, "step 1 (health): status: expected 200, got 502", "", exchange
    )

    assert failure_text(result) == (
        "step 1 (health): status: expected 200, got 502\nrequest: GET /health\nanswer: 502\n  Bad Gateway"
    )


def test_junit_has_a_testcase_per_scenario_with_failures_and_errors() -> None:
    passed = ScenarioResult(
        scenario("A refund succeeds", "scenarios/refunds/basic.yaml", ()), Outcome.PASSED, 0.25
    )
    error = ScenarioResult(
        scenario("Down", "./other/down.yml", ()),
        Outcome.ERROR,
        0.5,
        "setting up the merchant: ConnectionError: refused",
    )

    suites = ElementTree.fromstring(junit_xml([passed, FAILED, error], 1.5))

    assert (suites.tag, suites.attrib) == (
        "testsuites",
        {
            "name": "mocksrv scenarios",
            "tests": "3",
            "failures": "1",
            "errors": "1",
            "skipped": "0",
            "time": "1.500",
        },
    )
    [suite] = suites
    assert suite.attrib == {**suites.attrib, "name": "mocksrv scenarios"}
    assert [(case.tag, *case.attrib.values()) for case in suite] == [
        ("testcase", "scenarios.refunds.basic", "A refund succeeds", "scenarios/refunds/basic.yaml", "0.250"),
        (
            "testcase",
            "scenarios.cards.declined",
            "A declined card fails",
            "scenarios/cards/declined.yaml",
            "0.314",
        ),
        ("testcase", "other.down", "Down", "./other/down.yml", "0.500"),
    ]
    assert list(suite[0].attrib) == ["classname", "name", "file", "time"]
    assert [[(child.tag, child.attrib, child.text) for child in case] for case in suite] == [
        [],
        [("failure", {"message": FAILED.message, "type": "scenario failure"}, failure_text(FAILED))],
        [("error", {"message": error.message, "type": "scenario error"}, error.message)],
    ]


def test_junit_attributes_drop_what_xml_cannot_carry() -> None:
    # A tab and a bell in a name; a file name of Latin-1 bytes, as Python reads it.
    named = scenario("pays with tab\tand bell\x07", "l1/caf\udce9.yaml", ())
    result = ScenarioResult(named, Outcome.PASSED, 0.1)

    [case] = ElementTree.fromstring(junit_xml([result], 0.1))[0]

    assert case.attrib == {
        "classname": "l1.caf?",
        "name": "pays with tab\tand bell?",
        "file": "l1/caf?.yaml",
        "time": "0.100",
    }


def test_the_junit_class_is_the_dotted_path_without_the_suffix() -> None:
    files = ("scenarios/a/b.yaml", "/abs/x.yml", "c.d.yaml", "../../up/y.yaml", "./z.yaml")
    assert [classname(file) for file in files] == ["scenarios.a.b", "abs.x", "c.d", "up.y", "z"]


@pytest.mark.parametrize(("jobs", "threads"), [(1, 4), (4, 4), (8, 8), (10_000, 256)])
def test_the_embedded_server_has_a_thread_for_each_scenario_run_at_once(jobs: int, threads: int) -> None:
    assert embedded_settings("admin", jobs).threads == threads


def test_a_whole_variable_inside_a_step_is_left_to_its_value_where_a_number_duration_or_choice_goes(
    tmp_path: Path,
) -> None:
    text = (
        "name: n\ndescription: d\nvariables: {code: 200, floor: 1, wait: 10s, method: GET, answer: none}\n"
        "steps:\n"
        '  - request: {method: "${method}", path: /x}\n'
        '    expect: {status: "${code}", body: {total_count: {greater_than: "${floor}"}}}\n'
        '  - advance: "${wait}"\n'
        '  - request: {method: GET, path: /x}\n    expect: {answer: "${answer}"}\n'
    )

    assert load_scenario(write(tmp_path, text)).name == "n"


def test_a_whole_variable_outside_the_steps_is_a_problem_of_the_file(tmp_path: Path) -> None:
    head = "name: n\ndescription: d\nvariables: {d: 10s}\n"
    text = head + 'merchant: {receiver: {delay: "${d}"}}\nsteps:\n' + GET
    file = write(tmp_path, text)

    assert problems_of(file) == [
        f"{file}:4: merchant.receiver.delay: '${{d}}' is not a duration such as 500ms, 10s, 5m, 2h or 7d"
    ]


def test_a_delivery_held_by_the_receiver_is_listed_as_held_not_as_answered() -> None:
    body = {"event_id": "evt_1", "event_type": "payment_succeeded", "content": {"type": "payment_details"}}
    raw = json.dumps(body).encode()
    listed = [
        ReceivedWebhook(raw, {}, body, True, 200),
        ReceivedWebhook(raw, {}, body, True, 500, 1.5),
        ReceivedWebhook(raw, {}, body, False, 200, HANG_SECONDS),
    ]

    assert arrived(listed).splitlines() == [
        "arrived, in order:",
        "  payment_succeeded evt_1 for None, signed, answered 200",
        "  payment_succeeded evt_1 for None, signed, answered 500 after 1.5 s",
        "  payment_succeeded evt_1 for None, NOT signed, held without an answer (hang)",
    ]
