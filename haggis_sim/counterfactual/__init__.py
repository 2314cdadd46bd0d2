"""Counterfactual decision analysis of logged runs: what each alternative of a decision a
player faced would have been worth, scored with strategy code.

A logged position is rebuilt through the engine (:mod:`haggis_sim.analytics.replay`)
and its alternatives are searched from the acting seat's information only
(:mod:`strategies.analysis`, :mod:`strategies.shortlist`). This sits above the
strategies and the runner, so that :mod:`haggis_sim.analytics` reads logs only:

- :mod:`.decisions`: decision studies, what a bomb or a bet is worth position by
  position (``haggis-sim study``, an experiment's studies); their table and guidance
  are :mod:`haggis_sim.analytics.decision_table`.
- :mod:`.game_view` and :mod:`.game_page`: the step-through viewer of one logged game
  (``haggis-sim show``), which scores the chosen seats' decisions with
  ``--alternatives`` and labels seats by their strategy specs.
"""
