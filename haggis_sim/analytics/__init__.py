"""Analytics over a run's Parquet logs: statistics, reports, experiments, comparisons.

Data flows one way: the runner writes logs; everything here only reads them (through
DuckDB queries over the Parquet parts) and writes reports.
"""
