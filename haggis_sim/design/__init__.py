"""Design search: the rule variant that meets a designer's targets.

A design file (:mod:`.spec`) names rule flags to search (the knobs), objectives and
constraints in the balance quantities an experiment measures, the players and a budget.
:func:`run_design` searches the knobs with Optuna on common deals, stopping hopeless
candidates early (:mod:`.search`), then re-plays the best on fresh deals beside the base
rules as an ordinary experiment (:mod:`.confirm`): only those results are reported.
"""

from .spec import Design, load_design, parse_design

__all__ = ["Design", "load_design", "parse_design"]
