"""The wall-clock time that run folders, their locks and reports record."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["utc_now", "utc_stamp"]


def utc_now() -> datetime:
    """The current time in UTC, to the second."""
    return datetime.now(UTC).replace(microsecond=0)


def utc_stamp() -> str:
    """:func:`utc_now` as run folders and reports write it: ISO 8601 ending in ``Z``."""
    return utc_now().isoformat().replace("+00:00", "Z")
