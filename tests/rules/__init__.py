"""Rules that hold by class: a generator of cheating plans and replanners (issue 40)."""
