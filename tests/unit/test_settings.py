"""Settings: each bad value from each source gives one exact line; unknown names warn; precedence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mocksrv.settings import DEFAULT_FIXTURES, Settings, SettingsError, load_settings

PORT = "not a port (0 to 65535)"
HOST = "not an IP address or host name"
URL = "not an http or https URL with a host and a port of 1 to 65535"
SECONDS = "not a number of seconds greater than 0, at most 1000000"
THREADS = "not a whole number from 1 to 256"
RATE_LIMIT = "not a whole number from 0 to 9223372036854775807"
ONE_OR_MORE = "not a whole number of 1 or more"

# A setting, a bad value written the same as a flag, a variable and in YAML, and why it is bad.
BAD_VALUES = [
    ("port", "abc", PORT),
    ("port", "99999", PORT),
    ("port", "-1", PORT),
    ("port", "80.5", PORT),
    ("host", "999.1.1.1", HOST),
    ("host", "1.2.3", HOST),
    ("host", "-edge.example", HOST),
    ("host", "under_score.example", HOST),
    ("threads", "0", THREADS),
    ("threads", "257", THREADS),
    ("rate_limit", "-5", RATE_LIMIT),
    ("rate_limit", "many", RATE_LIMIT),
    ("rate_limit", "9223372036854775808", RATE_LIMIT),  # past what a state file holds
    ("journal_size", "1000001", "not a whole number from 0 to 1000000"),
    ("webhook_timeout", "0", SECONDS),
    ("webhook_timeout", "-1.5", SECONDS),
    ("webhook_timeout", "1000000.5", SECONDS),
    ("tick_interval", "inf", SECONDS),
    ("tick_interval", "soon", SECONDS),
    ("tick_interval", "1e10", SECONDS),  # past what a thread's timed wait takes
    ("state_interval", "1e10", "not a number of seconds from 0 to 1000000"),
    ("connection_timeout", "1000001", "not a whole number from 1 to 1000000"),
    ("webhook_workers", "0", ONE_OR_MORE),
    ("max_body_bytes", "0", ONE_OR_MORE),
    ("capture_window_seconds", "0", "not a whole number from 1 to 3162240000"),
    ("capture_window_seconds", "86400000000000", "not a whole number from 1 to 3162240000"),  # past datetime
    ("public_url", "ftp://shop.example", URL),
    ("public_url", "shop.example", URL),
    ("webhook_url", "http://", URL),
    ("webhook_url", "https://shop.example:99999/hooks", URL),
    ("environment", "staging", "not one of sandbox, production"),
    ("log_level", "verbose", "not one of debug, info, warning, error"),
]
CASE_IDS = [f"{name}={value}" for name, value, _ in BAD_VALUES]


def refusal(**sources: Any) -> str:
    """The message of the SettingsError that load_settings raises with these arguments."""
    with pytest.raises(SettingsError) as raised:
        load_settings(warn=unexpected_warning, **sources)
    return str(raised.value)


def unexpected_warning(message: str) -> None:
    raise AssertionError(f"unexpected warning: {message}")


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run the test in its temporary directory, so that a config file is named `config.yaml`."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def config(text: str) -> Path:
    path = Path("config.yaml")
    path.write_text(text)
    return path


# -- one exact line per bad value, from each source ------------------------------------------------


@pytest.mark.parametrize(("name", "value", "reason"), BAD_VALUES, ids=CASE_IDS)
def test_bad_flag_names_the_flag_and_value(name: str, value: str, reason: str) -> None:
    flag = "--" + name.replace("_", "-")

    assert refusal(environ={}, overrides={name: value}) == f"{flag} {value}: {reason}"


@pytest.mark.parametrize(("name", "value", "reason"), BAD_VALUES, ids=CASE_IDS)
def test_bad_variable_names_the_variable_and_value(name: str, value: str, reason: str) -> None:
    variable = f"MOCKSRV_{name.upper()}"

    assert refusal(environ={variable: value}) == f"{variable}={value}: {reason}"


@pytest.mark.usefixtures("in_tmp")
@pytest.mark.parametrize(("name", "value", "reason"), BAD_VALUES, ids=CASE_IDS)
def test_bad_config_value_names_the_file_key_and_value(name: str, value: str, reason: str) -> None:
    path = config(f"{name}: {value}\n")

    assert refusal(config_file=path, environ={}) == f"config.yaml: {name}={value}: {reason}"


@pytest.mark.usefixtures("in_tmp")
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("port: true\n", f"config.yaml: port=true: {PORT}"),
        ("port: null\n", f"config.yaml: port=null: {PORT}"),
        ("port: [8080]\n", f"config.yaml: port=[...]: {PORT}"),
        ("threads: 8.0\n", f"config.yaml: threads=8.0: {THREADS}"),
        ("webhook_timeout: false\n", f"config.yaml: webhook_timeout=false: {SECONDS}"),
        ("webhook_timeout: .nan\n", f"config.yaml: webhook_timeout=NaN: {SECONDS}"),
        ("admin_key: 123\n", "config.yaml: admin_key=123: not a non-empty string"),
        ("admin_key: ''\n", "config.yaml: admin_key='': not a non-empty string"),
        ("rate-limit: -5\n", f"config.yaml: rate-limit=-5: {RATE_LIMIT}"),
        ("host: 'two words'\n", f"config.yaml: host='two words': {HOST}"),
    ],
)
def test_bad_config_value_is_shown_as_yaml_writes_it(text: str, message: str) -> None:
    assert refusal(config_file=config(text), environ={}) == message


MEAN = "write the number you mean, or quote it"


@pytest.mark.usefixtures("in_tmp")
@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "port: [8080\n",
            "config.yaml: not valid YAML: did not find expected ',' or ']' (line 2, column 1)",
        ),
        (
            "port: 1\n  host: x\n",
            "config.yaml: not valid YAML: mapping values are not allowed in this context (line 2, column 7)",
        ),
        ("- port\n", "config.yaml: expected a mapping of setting: value"),
        ("just text\n", "config.yaml: expected a mapping of setting: value"),
        ("rate_limit: 1\nrate-limit: 2\n", "config.yaml: rate_limit is given twice"),
        # Valid YAML whose meaning is not what it says: the last key would win, 0100 would be 64.
        (
            "port: 8123\nhost: x\nport: 8124\n",
            "config.yaml: port is given twice (first on line 1) (line 3, column 1)",
        ),
        (
            "port: 010000\n",
            f"config.yaml: 010000 is read as 4096 (base 8): {MEAN} (line 1, column 7)",
        ),
        (
            "host: no\n",
            "config.yaml: no is read as false: write true or false, or quote it for text (line 1, column 7)",
        ),
        (
            "webhook_timeout: 1:30\n",
            f"config.yaml: 1:30 is read as 90 (base 60): {MEAN} (line 1, column 18)",
        ),
        (
            "webhook_timeout: 1:30.5\n",
            f"config.yaml: 1:30.5 is read as 90.5 (base 60): {MEAN} (line 1, column 18)",
        ),
    ],
)
def test_bad_config_file_is_one_line(text: str, message: str) -> None:
    assert refusal(config_file=config(text), environ={}) == message


@pytest.mark.usefixtures("in_tmp")
def test_missing_config_file_is_one_line() -> None:
    assert refusal(config_file=Path("absent.yaml"), environ={}) == (
        "absent.yaml: cannot read: no such file or directory"
    )


def test_fixtures_must_be_a_directory(tmp_path: Path) -> None:
    missing = tmp_path / "missing"

    assert (
        refusal(environ={"MOCKSRV_FIXTURES": str(missing)}) == f"MOCKSRV_FIXTURES={missing}: not a directory"
    )


def test_a_value_is_quoted_as_a_shell_would_take_it() -> None:
    assert refusal(environ={}, overrides={"host": "two words"}) == f"--host 'two words': {HOST}"
    assert refusal(environ={"MOCKSRV_PORT": ""}) == f"MOCKSRV_PORT='': {PORT}"
    assert refusal(environ={"MOCKSRV_HOST": "a\nb"}) == f"MOCKSRV_HOST='a\\nb': {HOST}"


@pytest.mark.usefixtures("in_tmp")
def test_a_bad_value_is_refused_even_when_a_later_source_overrides_it() -> None:
    path = config("port: abc\n")

    assert refusal(config_file=path, environ={"MOCKSRV_PORT": "9000"}) == f"config.yaml: port=abc: {PORT}"


# -- good values --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("port", "0", 0),
        ("port", "65535", 65535),
        ("port", " 9000 ", 9000),
        ("host", "0.0.0.0", "0.0.0.0"),
        ("host", "::1", "::1"),
        ("host", "localhost", "localhost"),
        ("host", "mocksrv-1.internal.example", "mocksrv-1.internal.example"),
        ("host", "10.0.0.1", "10.0.0.1"),
        ("threads", "1", 1),
        ("threads", "256", 256),
        ("rate_limit", "0", 0),
        ("webhook_timeout", "0.5", 0.5),
        ("tick_interval", "2", 2.0),
        ("public_url", "https://shop.example:8443/base", "https://shop.example:8443/base"),
        ("webhook_url", "http://127.0.0.1:9000/hooks", "http://127.0.0.1:9000/hooks"),
        ("environment", "production", "production"),
        ("log_level", "DEBUG", "debug"),
        ("admin_key", "secret admin key", "secret admin key"),
    ],
)
def test_good_value_is_parsed_from_a_variable(name: str, value: str, expected: object) -> None:
    settings = load_settings(environ={f"MOCKSRV_{name.upper()}": value}, warn=unexpected_warning)

    assert getattr(settings, name) == expected


def test_fixtures_directory_is_a_path(tmp_path: Path) -> None:
    settings = load_settings(environ={"MOCKSRV_FIXTURES": str(tmp_path)}, warn=unexpected_warning)

    assert settings.fixtures == tmp_path


def test_typed_overrides_are_accepted(tmp_path: Path) -> None:
    settings = load_settings(
        environ={}, overrides={"port": 0, "fixtures": tmp_path, "webhook_timeout": 2}, warn=unexpected_warning
    )

    assert (settings.port, settings.fixtures, settings.webhook_timeout) == (0, tmp_path, 2.0)


def test_an_override_of_no_setting_is_a_programming_error() -> None:
    with pytest.raises(TypeError, match="unknown setting 'colour'"):
        load_settings(environ={}, overrides={"colour": "blue"})


def test_defaults_are_unchanged() -> None:
    assert Settings() == Settings(
        host="127.0.0.1",
        port=8080,
        fixtures=DEFAULT_FIXTURES,
        environment="sandbox",
        rate_limit=6000,
        capture_window_seconds=604800,
        max_body_bytes=1048576,
        admin_key="mocksrv_admin_key",
        public_url=None,
        threads=4,
        tick_interval=0.25,
        log_level="info",
        webhook_url=None,
        webhook_timeout=5.0,
        webhook_workers=128,
    )
    assert load_settings(environ={}, warn=unexpected_warning) == Settings()


# -- unknown names warn and are ignored -----------------------------------------------------------------


def test_unknown_variable_warns_and_is_ignored() -> None:
    warnings: list[str] = []

    settings = load_settings(environ={"MOCKSRV_PROT": "9000", "MOCKSRV_PORT": "9001"}, warn=warnings.append)

    assert warnings == ["unknown environment variable MOCKSRV_PROT (ignored)"]
    assert settings.port == 9001


def test_unknown_variables_warn_before_a_bad_value_refuses() -> None:
    warnings: list[str] = []

    with pytest.raises(SettingsError) as raised:
        load_settings(environ={"MOCKSRV_PORT": "abc", "MOCKSRV_PROT": "1"}, warn=warnings.append)

    assert str(raised.value) == f"MOCKSRV_PORT=abc: {PORT}"
    assert warnings == ["unknown environment variable MOCKSRV_PROT (ignored)"]


def test_mocksrv_url_and_other_variables_do_not_warn() -> None:
    environ = {"MOCKSRV_URL": "http://127.0.0.1:8080", "HOME": "/root", "XMOCKSRV_PORT": "x"}

    assert load_settings(environ=environ, warn=unexpected_warning) == Settings()


@pytest.mark.usefixtures("in_tmp")
def test_unknown_config_key_warns_and_is_ignored() -> None:
    warnings: list[str] = []

    settings = load_settings(
        config_file=config("port: 0\ncolour: blue\n7: x\n"), environ={}, warn=warnings.append
    )

    assert warnings == [
        "config.yaml: unknown setting colour (ignored)",
        "config.yaml: unknown setting 7 (ignored)",
    ]
    assert settings.port == 0


@pytest.mark.usefixtures("in_tmp")
def test_warnings_go_to_stderr_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    load_settings(config_file=config("colour: blue\n"), environ={"MOCKSRV_PROT": "1"})

    assert capsys.readouterr().err == (
        "mocksrv: warning: config.yaml: unknown setting colour (ignored)\n"
        "mocksrv: warning: unknown environment variable MOCKSRV_PROT (ignored)\n"
    )


# -- sources and precedence -----------------------------------------------------------------------------


@pytest.mark.usefixtures("in_tmp")
@pytest.mark.parametrize("key", ["rate_limit", "rate-limit"])
def test_config_keys_take_either_spelling(key: str) -> None:
    settings = load_settings(config_file=config(f"{key}: 7\n"), environ={}, warn=unexpected_warning)

    assert settings.rate_limit == 7


@pytest.mark.usefixtures("in_tmp")
def test_empty_config_file_changes_nothing() -> None:
    assert load_settings(config_file=config(""), environ={}, warn=unexpected_warning) == Settings()


@pytest.mark.usefixtures("in_tmp")
@pytest.mark.parametrize(
    ("file", "variable", "flag", "expected"),
    [
        (None, None, None, 6000),
        ("10", None, None, 10),
        ("10", "20", None, 20),
        ("10", "20", "30", 30),
        (None, "20", "30", 30),
        ("10", None, "30", 30),
    ],
)
def test_precedence_is_defaults_then_file_then_environment_then_flags(
    file: str | None, variable: str | None, flag: str | None, expected: int
) -> None:
    settings = load_settings(
        config_file=None if file is None else config(f"rate_limit: {file}\n"),
        environ={} if variable is None else {"MOCKSRV_RATE_LIMIT": variable},
        overrides={"rate_limit": flag},
        warn=unexpected_warning,
    )

    assert settings.rate_limit == expected
