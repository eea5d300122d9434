"""The wall-clock time that run folders, their locks and reports record."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["utc_now"]


def utc_now() -> datetime:
    """The current time in UTC, to the second."""
    return datetime.now(UTC).replace(microsecond=0)
