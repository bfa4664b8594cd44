"""The sandbox itself: models, state machines, services, store and clock, in pure Python."""
