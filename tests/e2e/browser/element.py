"""Filling mocksrv's payment element as a person does, by the labels of its fields."""

from __future__ import annotations

from playwright.sync_api import FrameLocator

from tests.payloads import BILLING


def fill_card(frame: FrameLocator, number: str) -> None:
    frame.get_by_label("Card number").fill(number)
    frame.get_by_label("Expiry date").fill("12 / 34")
    frame.get_by_label("CVC", exact=True).fill("123")


def fill_billing(frame: FrameLocator) -> None:
    address = BILLING["address"]
    frame.get_by_label("First name").fill(address["first_name"])
    frame.get_by_label("Last name").fill(address["last_name"])
    frame.get_by_label("Address", exact=True).fill(address["line1"])
    frame.get_by_label("City").fill(address["city"])
    frame.get_by_label("State or region").fill(address["state"])
    frame.get_by_label("Postal code").fill(address["zip"])
    frame.get_by_label("Country").select_option(address["country"])
    frame.get_by_label("Phone code").fill(BILLING["phone"]["country_code"])
    frame.get_by_label("Phone number").fill(BILLING["phone"]["number"])
