"""Typed errors of the sandbox; each message is one line naming the field at fault."""


class SimError(Exception):
    """Base of every sandbox error."""


class UnknownPlaceError(SimError):
    """A path names no area, room or object of the world."""


class ScenarioError(SimError):
    """A scenario file is missing, unreadable or invalid; the message names file and field."""


class CheckpointError(SimError):
    """A run folder has no usable checkpoint, or does not match the scenario."""
