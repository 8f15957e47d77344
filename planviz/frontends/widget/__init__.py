"""The anywidget explorer and its side-by-side view."""
