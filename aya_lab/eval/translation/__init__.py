"""Translation evaluation, one module per concept: :mod:`~.specs` (system spec strings, their registry
and help; light, no model stack), :mod:`~.systems` (the systems and :func:`~.systems.resolve_system`),
:mod:`~.evaluate` (the run, the prompt sweep, held-apart examples, the ``translation`` task),
:mod:`~.scoring` (metric rows and output checks) and :mod:`~.results` (the report's views). The
notebooks' names are re-exported by :mod:`aya_lab.eval`.
"""
