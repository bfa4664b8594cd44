"""What is never shown in full, wherever bodies are shown (the access log, the request journal, scenario
reports): card and account numbers keep their last four characters, CVCs are hidden, and any run of 12
to 19 digits written as a card number is (spaces or dashes between groups) keeps its last four."""

from __future__ import annotations

import re
from typing import Any

from mocksrv.domain.payments.bank import CVC_FIELDS, LAST_FOUR_FIELDS

# As a payment method's details are kept, in any case, but for `number`: a phone's, in any body; a
# gift card's number is masked as any card-like run of digits is. And a processor's token, which
# charges the customer's method again as a card number does (payments never keep it), or pays out to
# it (a payout's passthrough `psp_token`), and the credentials an answer hands out once: a secret
# API key, a legacy access token.
LAST_FOUR_KEYS = (LAST_FOUR_FIELDS - {"number"}) | {
    "processor_payment_token",
    "psp_token",
    "api_key",
    "access_token",
}
# CVCs, and the password a profile's webhooks are sent with (kept, and shown to the merchant, as the
# real service shows it, but never written to a log or the journal).
HIDDEN_KEYS = CVC_FIELDS | {"webhook_password"}
HIDDEN = "***"
# Keys that also name a kind of method data, an object whose fields are masked as any are.
_ALSO_KINDS = frozenset({"network_token"})
# An object under `card` is a card, whose `number` is its number however its groups are spaced (the
# legacy API's `card.number` takes spaces as they come), not a phone's.
_CARD = "card"
_CARD_NUMBER = "number"
# Digits and what is written between a card number's groups (a space, a tab, a dash, a dot, and the
# two bytes of a no-break space in UTF-8) become "0", every other byte "x": a card number so spaced
# becomes a run of 12 zeros or more. One pass in C, where a pattern took six times as long. Not a
# slash, an underscore or a comma: order ids and return URLs write dates with them (`ord_2026_11_24`,
# `/2026/11/24/`), and each such body would be walked for nothing.
_RUN_BYTES = bytes(ord("0") if byte in b"0123456789 \t-.\xc2\xa0" else ord("x") for byte in range(256))
_RUN = b"0" * 12
# 12 to 19 digits, as a card number is written: in one run, or in groups split by spaces or dashes.
CARD_LIKE = re.compile(r"(?<![0-9])[0-9](?:[ -]?[0-9]){11,18}(?![0-9])")
# The same in text that may be URL-encoded (a query, a form, any text that is not JSON), where a
# space is also written `+` or `%20`.
_CARD_LIKE_IN_TEXT = re.compile(r"(?<![0-9])[0-9](?:(?:[ +-]|%20)?[0-9]){11,18}(?![0-9])")
_SEPARATORS = re.compile(r"[ +-]|%20")
# In a body that is not JSON (a form, broken JSON, text): a key of those above and its value, as in
# `card_cvc=987`, `"card_cvc": "987"`, Python's `'card_cvc': '987'`, `cvc 987` or a form's
# `card%5Bcvc%5D=987` (`card[cvc]`).
_KEYED = re.compile(
    rf"""(?P<key>(?:\b|(?<=%5B))(?P<name>{"|".join(sorted(LAST_FOUR_KEYS | HIDDEN_KEYS))})(?:%5D|\])?["']?"""
    r"""(?:\s*[:=]\s*|\s+)(?:\[\s*)*["']?)"""
    r"""(?P<value>[^\s&"',;})\]]+)""",
    re.IGNORECASE,
)
# A letter, digit or _ written as a JSON escape (`\u005f`) or a URL's (`%5F`): read as itself before
# the keys are looked for, so that `card\u005fcvc` is a CVC's key too.
_ESCAPED = re.compile(r"\\u00([0-9a-fA-F]{2})|%([0-9a-fA-F]{2})")
_SMALLEST_CARD_LIKE = 10**11
_SHORTEST_CARD_LIKE = 12
# The password of a URL's user information (`https://shop:s3cret@hooks.example/`), which a webhook
# URL may carry as a profile's `webhook_password` does: hidden as that is.
# Begun by its literal `://`, which the search skips to (a lookbehind would be tried at every byte).
URL_PASSWORD = re.compile(r"(://[^/?#@:\s\"']*):[^/?#@\s\"']+@")
URL_PASSWORD_BYTES = re.compile(URL_PASSWORD.pattern.encode())


def mask_json(data: Any) -> Any:
    """JSON data with card and account numbers cut to their last four and CVCs hidden: by key, and by
    the look of every text and whole number."""
    if isinstance(data, dict):
        return {key: _mask_entry(key, value) for key, value in data.items()}
    if isinstance(data, list):
        return [mask_json(item) for item in data]
    if isinstance(data, str):
        # Shorter than any card-like number: most texts, left as they are without a search.
        return data if len(data) < _SHORTEST_CARD_LIKE else mask_url_password(mask_card_like(data))
    if isinstance(data, int) and not isinstance(data, bool) and abs(data) >= _SMALLEST_CARD_LIKE:
        text = str(data)
        masked = mask_card_like(text)
        return data if masked == text else masked
    return data


def mask_url_password(text: str) -> str:
    """`text` with the password of every URL's user information hidden."""
    return URL_PASSWORD.sub(rf"\1:{HIDDEN}@", text) if "://" in text else text


def mask_card_like(text: str, pattern: re.Pattern[str] = CARD_LIKE) -> str:
    """`text` with every card-like run of digits cut to its last four."""
    return pattern.sub(lambda match: last_four(_SEPARATORS.sub("", match.group())), text)


def mask_text(text: str, *, read_escapes: bool = True) -> str:
    """Text that is not JSON (a query, a form, broken JSON, a name), masked by key and by the look of
    numbers. With `read_escapes`, a key spelt with escapes (`card%5Fcvc`) is found too, and shown
    as it reads; without, text a person wrote and reads again (a name) keeps every character."""
    if read_escapes:
        text = _ESCAPED.sub(_name_character, text)
    return mask_url_password(mask_card_like(mask_keyed(text), _CARD_LIKE_IN_TEXT))


def one_line(text: str) -> str:
    """`text` as a line of a log or a report: a newline, another control character, or any other
    character that is not printable is escaped (`\\n`, `\\x07`); the rest is kept as it is."""
    if text.isprintable():
        return text
    return "".join(
        character if character.isprintable() else character.encode("unicode_escape").decode("ascii")
        for character in text
    )


def _name_character(match: re.Match[str]) -> str:
    character = chr(int(match[1] or match[2], 16))
    # Only ASCII: a byte of a UTF-8 letter (`%C3%A9`) read alone would be another letter.
    return character if character.isascii() and (character.isalnum() or character == "_") else match[0]


def mask_keyed(text: str) -> str:
    """Text that is not JSON with the value after each card, account or CVC key masked."""

    def masked_value(match: re.Match[str]) -> str:
        value = match["value"]
        hidden = HIDDEN if match["name"].lower() in HIDDEN_KEYS else last_four(value)
        return match["key"] + hidden

    return _KEYED.sub(masked_value, text)


def last_four(number: str) -> str:
    return "*" * (len(number) - 4) + number[-4:] if len(number) > 4 else "*" * len(number)


def _mask_entry(key: str, value: Any) -> Any:
    if value is None:
        return None
    named = _named(key)
    if named in HIDDEN_KEYS:
        return HIDDEN
    if named in LAST_FOUR_KEYS:
        if named in _ALSO_KINDS and isinstance(value, dict):
            return mask_json(value)
        return _last_four_of(value)
    if named == _CARD and isinstance(value, dict):
        return {key: _mask_card_entry(key, entry) for key, entry in value.items()}
    return mask_json(value)


def has_card_run(data: bytes) -> bool:
    """Whether `data` holds a run of digits that may be a card number, however its groups are spaced:
    what a card's `number` must hold to be masked, and so what a body needs to be looked into for."""
    return _RUN in data.translate(_RUN_BYTES)


def _mask_card_entry(key: str, value: Any) -> Any:
    if _named(key) == _CARD_NUMBER and isinstance(value, str | int) and has_card_run(str(value).encode()):
        return _last_four_of(value)
    return _mask_entry(key, value)


def _last_four_of(value: Any) -> Any:
    return last_four(str(value)) if isinstance(value, str | int) else HIDDEN


def _named(key: str) -> str:
    """A key in lower case, as a key is matched in any case: ASCII letters only, as the journal's
    quick look at the bytes lowers them (`\u212a`, the Kelvin sign, is no `k`)."""
    return key.lower() if key.isascii() else key.encode().lower().decode()
