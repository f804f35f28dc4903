"""Closed-set decisions read from a `Scorer`: the protocol, importance ratings, belief."""
