"""API keys: the secret keys a merchant creates, names, dates and revokes through the API."""
