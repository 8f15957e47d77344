"""The command line: ``planviz COMMAND``, one module per group of commands."""
