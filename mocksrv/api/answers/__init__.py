"""Schemas of what the API answers, for the OpenAPI document, one module per resource."""
