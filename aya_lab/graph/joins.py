"""The flow of one graph level, as the checker sees it: reachability, loops that can never finish,
and joins that can starve.

A run finishes at ``END`` or at a node with no outgoing edge. :meth:`FlowGraph.cannot_finish` names
the reachable nodes from which neither is reachable: a run that enters them loops until LangGraph's
step limit. (A join is credited as an edge from each of its starts, so a loop is never reported when
some path might leave it.)

A join (``wait_for: all``) runs its end once *every* start ran. It starves when a run reaches some of
its starts but not all: LangGraph then waits forever and the end silently never runs. The proof here
is structural. A node ``d`` *dominates* a node ``s`` when every path from ``START`` to ``s`` passes
``d``; the nodes that *always* run once ``d`` ran are its closure over plain edges, over targets common
to every outcome of a conditional edge, and over joins all of whose starts are in the closure. A join
is safe when some common dominator ``d`` of its starts always runs all of them: then whichever path
reaches one start came through ``d``, and ``d`` runs the rest. Otherwise a conditional edge between
the deepest common dominator and the starts decides which starts run, and the join can starve.

Simplifications (conservative: a safe join may be reported, a starving one never passes): a
conditional edge is assumed able to choose any subset of its possible targets; a loop that reaches a
start again later is not credited.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from langgraph.constants import END, START

from aya_lab.graph.errors import PathPart

__all__ = ["FlowGraph", "Join", "Starving"]


@dataclass(frozen=True)
class Join:
    """A ``wait_for: all`` edge: ``end`` runs once every one of ``starts`` ran; ``path`` locates it."""

    starts: tuple[str, ...]
    end: str
    path: tuple[PathPart, ...]


@dataclass(frozen=True)
class Starving:
    """A join that can starve: after ``after``, the ``missing`` starts may not run when another does."""

    join: Join
    after: str
    missing: tuple[str, ...]


@dataclass
class FlowGraph:
    """Successors per node: ``possible`` (any edge may be taken) and ``sure`` (always taken)."""

    possible: dict[str, set[str]] = field(default_factory=dict)
    sure: dict[str, set[str]] = field(default_factory=dict)
    joins: list[Join] = field(default_factory=list)

    def add_edge(self, start: str, end: str) -> None:
        self.possible.setdefault(start, set()).add(end)
        self.sure.setdefault(start, set()).add(end)

    def add_branch(self, start: str, possible: Iterable[str], certain: Iterable[str]) -> None:
        """A conditional edge: any of ``possible`` may run; ``certain`` run whatever is chosen."""
        self.possible.setdefault(start, set()).update(possible)
        self.sure.setdefault(start, set()).update(certain)

    def reached(self, without: str | None = None) -> set[str]:
        """Nodes reachable from START (a join's end once all its starts are), not passing ``without``."""
        return self._closure({START}, self.possible, blocked=without)

    def always(self, node: str) -> set[str]:
        """Nodes that run in every run in which ``node`` ran (``node`` included)."""
        return self._closure({node}, self.sure)

    def _closure(self, seeds: set[str], succ: dict[str, set[str]], blocked: str | None = None) -> set[str]:
        done = set(seeds)
        frontier = [n for n in seeds if n != blocked]
        while True:
            while frontier:
                for nxt in succ.get(frontier.pop(), ()):
                    if nxt not in done and nxt != blocked:
                        done.add(nxt)
                        frontier.append(nxt)
            fresh = [j.end for j in self.joins if j.end not in done and j.end != blocked and set(j.starts) <= done]
            if not fresh:
                return done
            done.update(fresh)
            frontier.extend(fresh)

    def cannot_finish(self) -> set[str]:
        """Reachable nodes from which no path leads to END or to a node without successors."""
        succ = {n: set(s) for n, s in self.possible.items()}
        for join in self.joins:
            for s in join.starts:
                succ.setdefault(s, set()).add(join.end)
        reached = self.reached()
        pred: dict[str, set[str]] = {}
        for n, ends in succ.items():
            for m in ends:
                pred.setdefault(m, set()).add(n)
        done = {n for n in reached if not succ.get(n)} | {END}
        frontier = list(done)
        while frontier:
            for p in pred.get(frontier.pop(), ()):
                if p not in done:
                    done.add(p)
                    frontier.append(p)
        return reached - done - {START}

    def starving(self) -> list[Starving]:
        """Every reachable join whose starts are not all run on every path that reaches one of them."""
        reached = self.reached()
        cut = {d: reached - self.reached(without=d) | {d} for d in reached}  # the nodes d dominates
        out = []
        for join in self.joins:
            starts = set(join.starts)
            if not starts <= reached:
                continue  # a start is unreachable, so the join is: reported as such
            common = [d for d in reached if starts <= cut[d]]
            if any(starts <= self.always(d) for d in common):
                continue
            deepest = min(common, key=lambda d: (len(cut[d]), d))
            missing = tuple(s for s in join.starts if s not in self.always(deepest))
            out.append(Starving(join, deepest, missing))
        return out
