"""What :meth:`thunky.Executable.compare` finds."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

_DIFFERENCE = re.compile(r"^different: output (\d+) \(.*?\) of rank (\d+) differs first at "
                         r"byte (\d+)")
_THUNK = re.compile(r"(thunk (\d+)(?: \((?:[^()]|\([^()]*\))*\))?) of ")


@dataclass
class Comparison:
    """Two runs on the same inputs, every output of every rank compared bit
    for bit (thunky-run --compare, docs/checking.md).

    ``same`` says whether they agree. When not, ``difference`` is the line
    naming the first output that differs (``output``, ``rank`` and ``byte``
    say where), and ``divergence`` the line naming the first thunk after
    which the runs part (``thunk``: "thunk 3 (fusion.2, id 4)" of this
    executable's side, ``thunk_index`` its number, ``other_thunk`` the other
    side's), found by running both again with write logs. ``report`` is
    everything thunky-run would print. ``bool(comparison)`` is ``same``.
    """

    same: bool
    report: str
    difference: Optional[str] = None
    divergence: Optional[str] = None
    output: Optional[int] = None
    rank: Optional[int] = None
    byte: Optional[int] = None
    thunk: Optional[str] = None
    thunk_index: Optional[int] = None
    other_thunk: Optional[str] = None

    def __bool__(self) -> bool:
        return self.same

    def __str__(self) -> str:
        return self.report.rstrip("\n")

    @classmethod
    def parse(cls, status: int, report: str, name: str, other_name: str) -> "Comparison":
        """From thunkySessionCompare's status and report."""
        result = cls(same=status == 0, report=report)
        for line in report.splitlines():
            if line.startswith("different:") and result.difference is None:
                result.difference = line
                m = _DIFFERENCE.match(line)
                if m:
                    result.output, result.rank, result.byte = map(int, m.groups())
            elif line.startswith("first divergent thunk") and result.divergence is None:
                result.divergence = line
                # "thunk 3 (f) of SIDE (kind...)": the longer name first, for
                # "exe (thunky-optimize)" against "exe".
                sides = sorted([(name, True), (other_name, False)], key=lambda s: -len(s[0]))
                for m in _THUNK.finditer(line):
                    rest = line[m.end():]
                    mine = next((this for side, this in sides
                                 if rest.startswith(side + " (")), None)
                    if mine is False:
                        result.other_thunk = result.other_thunk or m.group(1)
                    elif mine and result.thunk is None:
                        result.thunk, result.thunk_index = m.group(1), int(m.group(2))
        return result
