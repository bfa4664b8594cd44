"""Rate limiting (decisions section 7): per API key, one-minute windows on the merchant's mock clock."""

from __future__ import annotations

import pytest

from mocksrv.domain.errors import ErrorKind, RateLimited
from mocksrv.domain.merchants import MerchantSeed
from mocksrv.domain.models import KeyKind, Principal
from mocksrv.domain.ratelimit import RateLimiter, RateStatus
from mocksrv.domain.sandbox import Sandbox
from tests.payloads import MERCHANT_ID, PUBLISHABLE_KEY, SECRET_KEY

# T0 is 2026-01-22T18:43:56.112Z: its window ends at 18:44:00Z, 3.888 s later.
RESET_AT_T0 = 1769107440
SECONDS_TO_RESET = 3.888


def principal(limit: int, key_id: str = "key_a", merchant_id: str = MERCHANT_ID) -> Principal:
    return Principal(merchant_id, key_id, KeyKind.SECRET, limit)


def hit_times(limiter: RateLimiter, who: Principal, times: int) -> list[RateStatus | None]:
    return [limiter.hit(who) for _ in range(times)]


def test_first_hit_reports_limit_remaining_and_reset(sandbox: Sandbox) -> None:
    assert sandbox.rate_limiter.hit(principal(3)) == RateStatus(limit=3, remaining=2, reset=RESET_AT_T0)


def test_remaining_counts_down_to_zero(sandbox: Sandbox) -> None:
    statuses = hit_times(sandbox.rate_limiter, principal(3), 3)
    assert [s.remaining for s in statuses if s is not None] == [2, 1, 0]


def test_hit_past_the_limit_is_rate_limited(sandbox: Sandbox) -> None:
    hit_times(sandbox.rate_limiter, principal(3), 3)
    with pytest.raises(RateLimited) as raised:
        sandbox.rate_limiter.hit(principal(3))
    assert (raised.value.code, raised.value.kind, raised.value.reset_at) == (
        "RL_01",
        ErrorKind.RATE,
        RESET_AT_T0,
    )


def test_rate_limited_message_names_the_reset_time(sandbox: Sandbox) -> None:
    hit_times(sandbox.rate_limiter, principal(1), 1)
    with pytest.raises(RateLimited) as raised:
        sandbox.rate_limiter.hit(principal(1))
    assert raised.value.message == "Rate limit exceeded; the window resets at 1769107440 (Unix time)"


def test_every_hit_past_the_limit_is_rate_limited(sandbox: Sandbox) -> None:
    hit_times(sandbox.rate_limiter, principal(1), 1)
    for _ in range(3):
        with pytest.raises(RateLimited):
            sandbox.rate_limiter.hit(principal(1))


def test_window_starts_again_at_the_reset_time(sandbox: Sandbox) -> None:
    hit_times(sandbox.rate_limiter, principal(1), 1)
    sandbox.scheduler.advance(MERCHANT_ID, SECONDS_TO_RESET)
    assert sandbox.rate_limiter.hit(principal(1)) == RateStatus(limit=1, remaining=0, reset=RESET_AT_T0 + 60)


def test_window_lasts_until_just_before_the_reset_time(sandbox: Sandbox) -> None:
    hit_times(sandbox.rate_limiter, principal(1), 1)
    sandbox.scheduler.advance(MERCHANT_ID, SECONDS_TO_RESET - 0.001)
    with pytest.raises(RateLimited):
        sandbox.rate_limiter.hit(principal(1))


def test_window_follows_the_mock_clock_not_the_system_time(sandbox: Sandbox) -> None:
    sandbox.scheduler.advance(MERCHANT_ID, 3600)
    assert sandbox.rate_limiter.hit(principal(5)).reset == RESET_AT_T0 + 3600


def test_limit_zero_turns_limiting_off(sandbox: Sandbox) -> None:
    assert hit_times(sandbox.rate_limiter, principal(0), 50) == [None] * 50


def test_keys_have_separate_windows(sandbox: Sandbox) -> None:
    hit_times(sandbox.rate_limiter, principal(1, key_id="key_a"), 1)
    assert sandbox.rate_limiter.hit(principal(1, key_id="key_b")) == RateStatus(1, 0, RESET_AT_T0)


def test_merchants_have_separate_windows(sandbox: Sandbox) -> None:
    other = sandbox.merchants.create(MerchantSeed()).merchant.merchant_id
    hit_times(sandbox.rate_limiter, principal(1), 1)
    assert sandbox.rate_limiter.hit(principal(1, merchant_id=other)) == RateStatus(1, 0, RESET_AT_T0)


def test_default_limit_is_6000_per_minute(sandbox: Sandbox) -> None:
    assert sandbox.merchants.authenticate(SECRET_KEY).rate_limit == 6000


def test_merchant_setting_overrides_the_default_limit(sandbox: Sandbox) -> None:
    credentials = sandbox.merchants.create(MerchantSeed(rate_limit=2))
    assert sandbox.merchants.authenticate(credentials.secret_key).rate_limit == 2


def test_merchant_setting_of_zero_turns_limiting_off_for_it(sandbox: Sandbox) -> None:
    credentials = sandbox.merchants.create(MerchantSeed(rate_limit=0))
    who = sandbox.merchants.authenticate(credentials.secret_key)
    assert sandbox.rate_limiter.hit(who) is None


def test_secret_and_publishable_keys_of_a_merchant_count_apart(sandbox: Sandbox) -> None:
    secret = sandbox.merchants.authenticate(SECRET_KEY)
    publishable = sandbox.merchants.authenticate(PUBLISHABLE_KEY)
    hit_times(sandbox.rate_limiter, secret, 3)
    assert sandbox.rate_limiter.hit(publishable).remaining == 5999
