"""Near misses at read time: a memory the judge found likely, but not sure enough, to replace
an earlier one ranks above it, and both stay true (`ChangePolicy.rank_above`)."""

from __future__ import annotations

from mindstream.memory.records import MemoryRecord, ScoredMemory


def newer_first(results: list[ScoredMemory], at_least: float) -> list[ScoredMemory]:
    """A near miss is a doubt, not a decision: the older memory stays active, but a memory
    whose call against it reached `at_least` is moved right above the first of those older
    memories among `results` when it ranked below. Nothing enters or leaves."""
    out = list(results)
    for newer in results:
        targets = _probably_replaced(newer.record, at_least)
        ids = [m.record.id for m in out]
        above = [ids.index(i) for i in targets if i in ids]
        if not above or min(above) > ids.index(newer.record.id):
            continue
        out.remove(newer)
        out.insert(min(above), newer)
    return out


def _probably_replaced(record: MemoryRecord, at_least: float) -> set[str]:
    p = record.provenance
    targets = set(p.near)
    if p.closest is not None and p.closest_p is not None and p.closest_p >= at_least:
        targets.add(p.closest)
    return targets
