"""Paying again: saved payment methods, mandates, and the payments made with them."""
