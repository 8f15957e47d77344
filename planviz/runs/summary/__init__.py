"""One run summary: what a view of a run shows besides its frames, computed once per run."""
