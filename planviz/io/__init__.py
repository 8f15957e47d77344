"""Stage 1, input and output: untrusted text in, checked plain data out, files written whole.

Nothing here knows what a plan is; every later stage reads it.
"""
