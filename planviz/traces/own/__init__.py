"""planviz's own trace file (JSON Lines), the recorder, and load_trace/save_trace."""
