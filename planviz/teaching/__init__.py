"""Exercise checks for the teaching notebooks: right, or what is wrong and a hint, never the solution.

One module per notebook, ``lesson01`` to ``lesson09``, each with
``check_exercise_N(...)`` for the exercises that end the notebook and "build it"
checks (``check_ancestors``, ``check_topological_order``, ``check_grade``,
``check_critical_path``, ``check_ready_waves``, ``check_failure_scope``,
``check_invariants``, ``check_reachable``, ``check_reissue``) that compare the student's own function with planviz on a
few hundred random plans (``check_invariants``: a table of revisions) and show the first disagreement. Every check reads
answers through one toolkit: ``answers`` (spaces, case, numbers as text, an
exception class for its name, ``S1.v2`` for the ``S1`` that runs next; a wrong
type is a "not yet" with a hint, never a crash; a set where an order is asked is
refused, deterministically) and ``guards`` (a build-it answer that calls the
library's own algorithm fails, kindly). Every check returns a :class:`Feedback`,
which shows itself in a notebook and is truthy only when the answer is right.
Expected answers are computed with planviz, not written down, so a check
follows the library. The solutions live in ``notebooks/solutions/``; CI runs
every one through its check (tests/test_notebooks.py), and tests/teaching/bank/ is a
teacher's answer bank: at least 25 answers per check (right in several forms, wrong,
cheats of every family), each with the verdict it must get (tests/teaching/test_bank.py).

>>> from planviz.teaching.lesson03 import check_exercise_1
>>> feedback = check_exercise_1(path=["S0", "S1", "S3", "S4"], makespan=29)
>>> feedback.passed, bool(feedback.hint)
(False, True)
"""

from __future__ import annotations

from planviz.teaching.feedback import Feedback

__all__ = ["Feedback"]
