"""The legacy card API's domain: client credentials and bearer tokens, decimal amounts, transactions."""
