"""Hindsight: what a run could have been (provenance, the ideal plan, what-if)."""
