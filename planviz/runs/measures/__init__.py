"""The measures of a run: metrics, outcome classes, intervals."""
