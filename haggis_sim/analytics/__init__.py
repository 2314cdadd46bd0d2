"""Analytics over a run's Parquet logs: report sections, comparisons, replays.

Data flows one way: the runner writes logs; everything here only reads them (through
confined DuckDB queries and polars scans over the parts the ledger vouches for). The
report pages are built by :mod:`haggis_sim.report`; experiments, which play runs and then
analyse them, live in :mod:`haggis_sim.experiment`; decision studies and the game viewer,
which score logged decisions again with strategy code, in
:mod:`haggis_sim.counterfactual`.
"""
