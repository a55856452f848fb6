"""The rcs runtime: hand-written behaviour on top of the generated models and tables."""
