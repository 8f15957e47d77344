"""Offline HTML pages: the single-run report, the two-run report, the slides."""
