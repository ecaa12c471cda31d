"""The busiest moment of the S3 load over the last day, which the plan and the load runways hold.

The study's clients wrote for an hour, then read and ran a mixed load for 15 minutes each [000].
Sized on the load of the moment, the 10B cluster's plan asked 374 HDDs by ops at the end of a PUT
hour, 425 at the end of the GETs and 397 after the mixed load, and none at an idle moment: the
figure followed the phase. The cluster has to carry the busiest of them. Each hour keeps its
busiest reading, the four S3 rates of one moment (phases that alternate are never summed), for a
day: 24 readings at most. They are saved with the runway's history: `--once --plan` from cron is
a new process each hour, and would otherwise plan on the phase it ran in. Such a process has no
rate of the moment (one derivation): its reading is the runway trend's last interval, the load
since the run before. Readings older than a day go at every derivation, whether one is added or
not, so a saved peak never outlives its day.
"""

from __future__ import annotations

import math

HOUR = 3600.0
HOURS_KEPT = 24


class Busiest:
    def __init__(self) -> None:
        self.hours: dict[int, tuple[float, float, tuple[float, ...]]] = {}  # hour -> (load, t, rates)

    def add(self, t: float, rates: tuple[float, ...], load: float) -> None:
        """A reading of the S3 rates at `t`, weighing `load` (the HDDs' share of their baseline)."""
        if not (math.isfinite(t) and math.isfinite(load) and all(math.isfinite(r) for r in rates)):
            return
        hour = int(t // HOUR)
        kept = self.hours.get(hour)
        # Only a busier reading replaces the hour's: an equal one would change the saved state at
        # every poll of a steady load.
        if kept is None or load > kept[0]:
            self.hours[hour] = (load, t, rates)
        self.expire(t)

    def expire(self, t: float) -> None:
        """Drop the readings past the day before `t`; or more than a day ahead of a clock that
        stepped back (a step of an hour or two keeps the day's readings, its peak with them)."""
        if not math.isfinite(t):
            return
        hour = int(t // HOUR)
        for old in [h for h in self.hours if abs(h - hour) >= HOURS_KEPT]:
            del self.hours[old]

    def to_list(self) -> list[list[float]]:
        """[load, t, *rates] of each hour kept."""
        return [[load, t, *rates] for load, t, rates in self.hours.values()]

    @classmethod
    def from_list(cls, data: object, width: int) -> Busiest:
        """The readings `to_list` saved, each of `width` rates; a malformed one is dropped alone."""
        busiest = cls()
        for entry in data if isinstance(data, list) else ():
            if not isinstance(entry, list) or len(entry) != width + 2:
                continue
            if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in entry):
                continue
            try:
                load, t, *rates = (float(x) for x in entry)
            except OverflowError:  # an integer past any float, valid JSON
                continue
            busiest.add(t, tuple(rates), load)
        return busiest

    def rates(self) -> tuple[float, ...] | None:
        """The rates of the busiest reading kept; None before any."""
        return max(self.hours.values())[2] if self.hours else None
