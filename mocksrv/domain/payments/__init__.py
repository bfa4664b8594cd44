"""Payments: the service, the status table, the fields kept as sent, what a payment pays with, and the
magic values that decide its outcome (cards, bank accounts, the outcome table)."""
