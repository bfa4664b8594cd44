"""What the webhook steps of a scenario look for: the Nth delivery of an event at the receiver, and
the merchant's delivery log of an event; and how a failure shows them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mocksrv.client import Merchant
from mocksrv.receiver import ReceivedWebhook
from mocksrv.scenario.format import HANG_SECONDS
from mocksrv.scenario.matchers import shown


def nth_delivery(
    deliveries: Sequence[ReceivedWebhook], event_type: str, object_id: str | None, attempt: int
) -> ReceivedWebhook | None:
    """The delivery of an event of that type (and object) that was its `attempt`-th to arrive."""
    counted: dict[str | None, int] = {}
    for delivery in deliveries:
        counted[delivery.event_id] = counted.get(delivery.event_id, 0) + 1
        if (
            delivery.event_type == event_type
            and object_id in (None, delivery.object_id)
            and counted[delivery.event_id] == attempt
        ):
            return delivery
    return None


def arrived(deliveries: Sequence[ReceivedWebhook]) -> str:
    if not deliveries:
        return "arrived: nothing"
    lines = ["arrived, in order:"]
    for delivery in deliveries:
        signed = "signed" if delivery.verified else "NOT signed"
        answered = f"answered {delivery.status}"
        if delivery.delay >= HANG_SECONDS:
            answered = "held without an answer (hang)"
        elif delivery.delay:
            answered += f" after {delivery.delay:g} s"
        event = f"{delivery.event_type} {delivery.event_id} for {delivery.object_id}"
        lines.append(f"  {event}, {signed}, {answered}")
    return "\n".join(lines)


def delivery_mismatches(
    merchant: Merchant, event_type: str, object_id: str | None, expected: Mapping[str, Any], wanted: str
) -> tuple[list[str], str]:
    """What the merchant's delivery log of the event lacks, and the log as a failure shows it."""
    events = [
        event
        for event in merchant.events()
        if event["event_type"] == event_type and object_id in (None, event["object_id"])
    ]
    if not events:
        return [f"no {wanted} event"], ""
    event = events[-1]  # the first to happen: the list is newest first
    attempts = list(reversed(merchant.deliveries(event["event_id"])))
    reasons = []
    if "count" in expected and len(attempts) != expected["count"]:
        reasons.append(f"expected {expected['count']} delivery attempts of {wanted}, got {len(attempts)}")
    state = event["delivery"]["state"]
    if "status" in expected and state != expected["status"]:
        reasons.append(f"expected delivery state {shown(expected['status'])}, got {shown(state)}")
    lines = [f"{event['event_id']} ({event_type} for {event['object_id']}): {state}, attempts:"]
    for number, attempt in enumerate(attempts, 1):
        answered = attempt["status_code"] if attempt["error"] is None else attempt["error"]
        lines.append(f"  {number}. {attempt['attempted_at']} {answered}")
    return reasons, "\n".join(lines)
