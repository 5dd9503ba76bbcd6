"""The simulator's foundation: state, simulated clock, request context, wire helpers, dialect, faults, demo accounts."""
