"""Magic values: the table that decides how a payment method's payment turns out."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any

from mocksrv.domain.bounds import Within
from mocksrv.domain.clock import LONGEST_SPAN_SECONDS
from mocksrv.domain.errors import InvalidField, UnknownField
from mocksrv.domain.payments.cards import card_key


class OutcomeResult(StrEnum):
    SUCCESS = "success"
    DECLINE = "decline"
    CHALLENGE = "challenge"  # 3D Secure: the customer must authenticate
    REVIEW = "review"  # held for manual review
    PROCESSING = "processing"  # settled later on the mock clock
    TRANSFER = "transfer"  # waits for the customer's bank transfer, until its window passes


# Which result may follow a challenge or a processing step.
_FOLLOWERS = {
    OutcomeResult.CHALLENGE: {
        OutcomeResult.SUCCESS,
        OutcomeResult.DECLINE,
        OutcomeResult.REVIEW,
        OutcomeResult.PROCESSING,
    },
    OutcomeResult.PROCESSING: {OutcomeResult.SUCCESS, OutcomeResult.DECLINE},
    OutcomeResult.TRANSFER: {OutcomeResult.SUCCESS, OutcomeResult.DECLINE},
}
# How long an outcome waits when its rule does not say (`after_seconds`).
_DEFAULT_WAIT = {OutcomeResult.PROCESSING: 10, OutcomeResult.TRANSFER: 7 * 24 * 3600}

DEFAULT_DECLINE_MESSAGE = "Your card was declined."


@dataclass(frozen=True, slots=True)
class Outcome:
    result: OutcomeResult
    error_code: str | None = None
    error_message: str | None = None
    after_seconds: Annotated[int | None, Within(0, LONGEST_SPAN_SECONDS)] = None
    then: Outcome | None = None
    opens_dispute: bool = False
    refund_result: str | None = None
    checks: tuple[tuple[str, str], ...] = ()  # card checks that do not pass: (check, result)

    def route(self) -> tuple[Any, ...]:
        """Where the outcome leads, its words, checks and waits aside: each result in turn, whether a
        dispute opens, how refunds go."""
        then = None if self.then is None else self.then.route()
        return (self.result, self.opens_dispute, self.refund_result, then)

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"result": self.result.value}
        if self.error_code is not None:
            data["error_code"] = self.error_code
        if self.error_message is not None:
            data["error_message"] = self.error_message
        if self.after_seconds is not None:
            data["after_seconds"] = self.after_seconds
        if self.then is not None:
            data["then"] = self.then.to_data()
        if self.opens_dispute:
            data["opens_dispute"] = True
        if self.refund_result is not None:
            data["refund_result"] = self.refund_result
        if self.checks:
            data["checks"] = dict(self.checks)
        return data


SUCCESS = Outcome(OutcomeResult.SUCCESS)

# The card checks a payment answers (`payment_checks`), and what each may come out as.
CARD_CHECKS = ("cvc_check", "address_line1_check", "address_postal_code_check")
CHECK_RESULTS = ("pass", "fail", "unavailable")


@dataclass(frozen=True, slots=True)
class Context:
    """What a rule may match besides the method's data: how the payment is made."""

    off_session: bool = False  # charged without the customer (a merchant-initiated payment)
    authentication_type: str | None = None  # three_ds or no_three_ds, as the payment asks


ON_SESSION = Context()


def outcome_context(echoed: Mapping[str, Any] | None, authentication_type: str | None) -> Context:
    """What an outcome rule may ask of the payment: off session or not, and how it authenticates."""
    return Context(bool((echoed or {}).get("off_session")), authentication_type)


@dataclass(frozen=True, slots=True)
class OutcomeRule:
    """A rule: when every criterion given matches the payment method, the outcome applies."""

    outcome: Outcome
    name: str | None = None
    payment_method: str | None = None
    payment_method_type: str | None = None
    card_numbers: frozenset[str] = frozenset()
    fields_contain: tuple[tuple[str, str], ...] = ()  # (dotted path in method data, substring)
    off_session: bool | None = None
    authentication_type: str | None = None
    card_keys: frozenset[str] = frozenset()  # the card numbers' keys, to match a saved card

    def __post_init__(self) -> None:
        object.__setattr__(self, "card_keys", frozenset(card_key(number) for number in self.card_numbers))

    def matches(
        self,
        payment_method: str,
        payment_method_type: str | None,
        data: Mapping[str, Any],
        context: Context = ON_SESSION,
    ) -> bool:
        if self.payment_method is not None and self.payment_method != payment_method:
            return False
        if self.payment_method_type is not None and self.payment_method_type != payment_method_type:
            return False
        if self.off_session is not None and self.off_session != context.off_session:
            return False
        if self.authentication_type is not None and self.authentication_type != context.authentication_type:
            return False
        if self.card_numbers:
            card = data.get("card")
            if not isinstance(card, Mapping):
                return False
            number = card.get("card_number")
            if number is None:  # a saved card: matched by the key of its number
                if card.get("card_key") not in self.card_keys:
                    return False
            elif number not in self.card_numbers:
                return False
        return all(_contains(_dig(data, path), needle.lower()) for path, needle in self.fields_contain)

    def to_data(self) -> dict[str, Any]:
        match: dict[str, Any] = {}
        if self.payment_method is not None:
            match["payment_method"] = self.payment_method
        if self.payment_method_type is not None:
            match["payment_method_type"] = self.payment_method_type
        if self.card_numbers:
            match["card_number"] = sorted(self.card_numbers)
        if self.fields_contain:
            match["fields_contain"] = dict(self.fields_contain)
        if self.off_session is not None:
            match["off_session"] = self.off_session
        if self.authentication_type is not None:
            match["authentication_type"] = self.authentication_type
        data: dict[str, Any] = {"match": match, "outcome": self.outcome.to_data()}
        if self.name is not None:
            data = {"name": self.name, **data}
        return data


class OutcomeTable:
    """Rules in order; the first that matches decides. No match: success."""

    def __init__(self, rules: tuple[OutcomeRule, ...]) -> None:
        self.rules = rules

    def match(
        self,
        payment_method: str,
        payment_method_type: str | None,
        data: Mapping[str, Any],
        context: Context = ON_SESSION,
    ) -> Outcome:
        for rule in self.rules:
            if rule.matches(payment_method, payment_method_type, data, context):
                return rule.outcome
        return SUCCESS

    def to_data(self) -> dict[str, Any]:
        return {"rules": [rule.to_data() for rule in self.rules]}

    @classmethod
    def from_data(cls, data: Any) -> OutcomeTable:
        """Build a table from its plain-data form (the fixture file, or a control-plane body)."""
        if not isinstance(data, Mapping):
            raise InvalidField("rules", "the table is an object with a list of rules")
        for key in data:
            if key != "rules":
                raise UnknownField(str(key))
        rules = data.get("rules")
        if not isinstance(rules, list):
            raise InvalidField("rules", missing="rules" not in data)
        return cls(tuple(_rule(item, f"rules.{index}") for index, item in enumerate(rules)))


def _dig(data: Mapping[str, Any], path: str) -> Any:
    value: Any = data
    for part in path.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(part)
    return value


def _contains(value: Any, needle: str) -> bool:
    """Whether the text, or any text in the object or list, holds `needle` (given in lower case)."""
    if isinstance(value, str):
        return needle in value.lower()
    if isinstance(value, Mapping):
        return any(_contains(item, needle) for item in value.values())
    if isinstance(value, list):
        return any(_contains(item, needle) for item in value)
    return False


def _rule(item: Any, path: str) -> OutcomeRule:
    if not isinstance(item, Mapping):
        raise InvalidField(path)
    _no_unknown(item, {"name", "match", "outcome"}, path)
    match = item.get("match", {})
    if not isinstance(match, Mapping):
        raise InvalidField(f"{path}.match")
    _no_unknown(
        match,
        {
            "payment_method",
            "payment_method_type",
            "card_number",
            "fields_contain",
            "off_session",
            "authentication_type",
        },
        f"{path}.match",
    )
    numbers = match.get("card_number", [])
    if isinstance(numbers, str):
        numbers = [numbers]
    if not isinstance(numbers, list) or not all(isinstance(n, str) and n.isdigit() for n in numbers):
        raise InvalidField(f"{path}.match.card_number", "a list of card numbers as strings of digits")
    contains = match.get("fields_contain", {})
    if not isinstance(contains, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in contains.items()
    ):
        raise InvalidField(f"{path}.match.fields_contain", "an object of field path to substring")
    off_session = match.get("off_session")
    if off_session is not None and not isinstance(off_session, bool):
        raise InvalidField(f"{path}.match.off_session", "true or false")
    authentication_type = _optional_str(match, "authentication_type", f"{path}.match")
    if authentication_type not in (None, "three_ds", "no_three_ds"):
        raise InvalidField(f"{path}.match.authentication_type", "three_ds or no_three_ds")
    if "outcome" not in item:
        raise InvalidField(f"{path}.outcome", missing=True)
    return OutcomeRule(
        outcome=_outcome(item["outcome"], f"{path}.outcome"),
        name=_optional_str(item, "name", path),
        payment_method=_optional_str(match, "payment_method", f"{path}.match"),
        payment_method_type=_optional_str(match, "payment_method_type", f"{path}.match"),
        card_numbers=frozenset(numbers),
        fields_contain=tuple(contains.items()),
        off_session=off_session,
        authentication_type=authentication_type,
    )


def _outcome(item: Any, path: str) -> Outcome:
    if not isinstance(item, Mapping):
        raise InvalidField(path)
    _no_unknown(
        item,
        {
            "result",
            "error_code",
            "error_message",
            "after_seconds",
            "then",
            "opens_dispute",
            "refund_result",
            "checks",
        },
        path,
    )
    try:
        result = OutcomeResult(str(item.get("result")))
    except ValueError:
        raise InvalidField(f"{path}.result", missing="result" not in item) from None
    then = _outcome(item["then"], f"{path}.then") if "then" in item else None
    followers = _FOLLOWERS.get(result)
    if followers is None and then is not None:
        raise InvalidField(f"{path}.then", f"a {result.value} outcome has no follow-up")
    if followers is not None:
        if then is None:
            raise InvalidField(f"{path}.then", missing=True)
        if then.result not in followers:
            raise InvalidField(f"{path}.then.result", f"cannot follow {result.value}")
    after = item.get("after_seconds")
    if result in _DEFAULT_WAIT:
        if after is None:
            after = _DEFAULT_WAIT[result]
        if not isinstance(after, int) or isinstance(after, bool) or not 0 <= after <= LONGEST_SPAN_SECONDS:
            reason = f"a whole number of seconds from 0 to {LONGEST_SPAN_SECONDS} (100 years)"
            raise InvalidField(f"{path}.after_seconds", reason)
    elif after is not None:
        raise InvalidField(f"{path}.after_seconds", "only a processing or transfer outcome waits")
    error_code = _optional_str(item, "error_code", path)
    error_message = _optional_str(item, "error_message", path)
    if result is OutcomeResult.DECLINE:
        error_code = error_code or "card_declined"
        error_message = error_message or DEFAULT_DECLINE_MESSAGE
    opens_dispute = item.get("opens_dispute", False)
    if not isinstance(opens_dispute, bool):
        raise InvalidField(f"{path}.opens_dispute")
    refund_result = _optional_str(item, "refund_result", path)
    if refund_result not in (None, "succeeded", "failed"):
        raise InvalidField(f"{path}.refund_result", "succeeded or failed")
    checks = item.get("checks", {})
    if not isinstance(checks, Mapping):
        raise InvalidField(f"{path}.checks", "an object of card check to result")
    for check, check_result in checks.items():
        if check not in CARD_CHECKS:
            raise InvalidField(f"{path}.checks.{check}", f"one of {', '.join(CARD_CHECKS)}")
        if check_result not in CHECK_RESULTS:
            raise InvalidField(f"{path}.checks.{check}", f"one of {', '.join(CHECK_RESULTS)}")
    return Outcome(
        result=result,
        error_code=error_code,
        error_message=error_message,
        after_seconds=after,
        then=then,
        opens_dispute=opens_dispute,
        refund_result=refund_result,
        checks=tuple(checks.items()),
    )


def _optional_str(item: Mapping[str, Any], key: str, path: str) -> str | None:
    value = item.get(key)
    if value is not None and not isinstance(value, str):
        raise InvalidField(f"{path}.{key}")
    return value


def _no_unknown(item: Mapping[str, Any], known: set[str], path: str) -> None:
    for key in item:
        if key not in known:
            raise UnknownField(f"{path}.{key}")
