"""The tournament runner: many games between strategies, in parallel, logged to Parquet."""
