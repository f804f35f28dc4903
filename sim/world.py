"""The sandbox world: a tree of places (area -> room -> object) with object states.

Paths are written the way the paper writes them: "Hobbs Cafe: counter: coffee machine".
An agent stands in a room ("Hobbs Cafe: cafe"); it sees everything in its area.
"""

from __future__ import annotations

from collections.abc import Mapping

from mindstream.sim.errors import UnknownPlaceError

IDLE = "idle"
SEPARATOR = ": "


def join(*parts: str) -> str:
    return SEPARATOR.join(parts)


def split(path: str) -> list[str]:
    return [part.strip() for part in path.split(":") if part.strip()]


class World:
    """Areas, their rooms, the rooms' objects and each object's current state."""

    def __init__(self, areas: Mapping[str, Mapping[str, Mapping[str, str]]]) -> None:
        if not areas:
            raise UnknownPlaceError("world: has no area")
        self._areas = {
            area: {room: dict(objects or {}) for room, objects in rooms.items()}
            for area, rooms in areas.items()
        }
        self._initial = self.get_state()

    # ---- structure ---------------------------------------------------------------------
    def areas(self) -> list[str]:
        return list(self._areas)

    def rooms(self, area: str) -> list[str]:
        return list(self._area(area))

    def objects(self, area: str, room: str) -> dict[str, str]:
        return dict(self._room(area, room))

    def room_path(self, path: str) -> str:
        """The room a path names or lies in ("A: r" or "A: r: object" -> "A: r")."""
        parts = split(path)
        if len(parts) < 2:
            area = parts[0] if parts else path
            self._area(area)
            return join(area, self.rooms(area)[0])
        self._room(parts[0], parts[1])
        return join(parts[0], parts[1])

    def area_of(self, path: str) -> str:
        return split(self.room_path(path))[0]

    def check(self, path: str) -> str:
        """`path` if it names an area, room or object of this world; else a typed error."""
        parts = split(path)
        if len(parts) == 1:
            self._area(parts[0])
        elif len(parts) == 2:
            self._room(parts[0], parts[1])
        elif len(parts) == 3:
            self._object(parts)
        else:
            raise UnknownPlaceError(f"unknown place {path!r}: write 'area: room: object'")
        return join(*parts)

    # ---- object states -----------------------------------------------------------------
    def state(self, path: str) -> str:
        area, room, name = self._object(split(path))
        return self._areas[area][room][name]

    def set_state(self, path: str, state: str) -> None:
        area, room, name = self._object(split(path))
        self._areas[area][room][name] = state.strip() or IDLE

    def visible(self, room_path: str) -> list[tuple[str, str]]:
        """(object path, state) of every object not idle in the area around `room_path`."""
        area = self.area_of(room_path)
        return [
            (join(area, room, name), state)
            for room, objects in self._areas[area].items()
            for name, state in objects.items()
            if state != IDLE
        ]

    def changed(self) -> dict[str, str]:
        """Objects whose state differs from the scenario's start (for reports)."""
        now, start = self.get_state(), self._initial
        return {path: state for path, state in now.items() if start.get(path) != state}

    # ---- saving ------------------------------------------------------------------------
    def get_state(self) -> dict[str, str]:
        return {
            join(area, room, name): state
            for area, rooms in self._areas.items()
            for room, objects in rooms.items()
            for name, state in objects.items()
        }

    def set_state_all(self, states: Mapping[str, str]) -> None:
        for path, state in states.items():
            self.set_state(path, state)

    # ---- lookups -----------------------------------------------------------------------
    def _area(self, area: str) -> dict[str, dict[str, str]]:
        try:
            return self._areas[area]
        except KeyError:
            known = ", ".join(self._areas)
            raise UnknownPlaceError(f"unknown area {area!r} (known: {known})") from None

    def _room(self, area: str, room: str) -> dict[str, str]:
        rooms = self._area(area)
        try:
            return rooms[room]
        except KeyError:
            known = ", ".join(rooms)
            raise UnknownPlaceError(f"{area!r} has no room {room!r} (known: {known})") from None

    def _object(self, parts: list[str]) -> tuple[str, str, str]:
        if len(parts) != 3:
            raise UnknownPlaceError(
                f"{join(*parts)!r} is not an object: write 'area: room: object'"
            )
        area, room, name = parts
        if name not in self._room(area, room):
            known = ", ".join(self._room(area, room))
            raise UnknownPlaceError(f"{join(area, room)!r} has no object {name!r} (known: {known})")
        return area, room, name
