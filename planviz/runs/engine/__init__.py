"""The engine: the state machine, the simulation and the strategies that drive it."""
