"""The run-folder format, shared by the writer (the runner) and every reader.

- :mod:`.schema`: the three Parquet tables, their columns and how chunk matrices become
  typed frames; atomic file writes;
- :mod:`.ledger`: which parts are finished, with sizes and digests; the parts a reader
  may trust;
- :mod:`.manifest`: the run's configuration and its digest;
- :mod:`.query`: read-only, confined DuckDB connections over a run's parts.
"""
