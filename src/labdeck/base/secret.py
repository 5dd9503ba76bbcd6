"""A string that never shows itself: for tokens in memory."""

from __future__ import annotations


class Secret:
    """Holds a secret value; ``str``/``repr``/``format`` are masked. Use :meth:`reveal` at the
    single point where the value must go on the wire or into the keyring."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The real value. Call only where it leaves the process (HTTP header, keyring)."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('********')"

    def __str__(self) -> str:
        return "********"

    def __format__(self, spec: str) -> str:
        return "********"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(("Secret", self._value))

    def __bool__(self) -> bool:
        return bool(self._value)

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("a Secret cannot be pickled")
