"""What the control plane works with beside the payments core: fault rules, the request journal,
triggered events and snapshots."""
