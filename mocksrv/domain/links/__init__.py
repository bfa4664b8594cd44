"""Payment links: a hosted page that takes the payment of an amount, and the link's own lifecycle."""
