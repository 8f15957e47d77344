"""Exercise checks for the teaching notebooks: right, or what is wrong and a hint, never the solution.

One module per notebook: ``lesson01`` (01_checklist_to_plan), ``lesson03``
(03_critical_path), ``lesson05`` (05_debugging_a_failed_run). Each has
``check_exercise_N(...)`` functions for the exercises that end the notebook,
and a "build it" check (``check_ancestors``, ``check_reachable``) that compares
the student's own function with planviz on a few hundred random plans and
shows the first disagreement. Every check returns a :class:`Feedback`, which
shows itself in a notebook and is truthy only when the answer is right.
Expected answers are computed with planviz, not written down, so a check
follows the library. The solutions live in ``notebooks/solutions/``; CI runs
every one through its check (tests/teaching/).

>>> from planviz.teaching.lesson03 import check_exercise_1
>>> feedback = check_exercise_1(path=["S0", "S1", "S3", "S4"], makespan=29)
>>> feedback.passed, bool(feedback.hint)
(False, True)
"""

from __future__ import annotations

from .feedback import Feedback

__all__ = ["Feedback"]
