"""Training the embedded model's small adapters (on train splits only)."""
