"""One module per graph node. Each takes the state and the runtime, returns a state update."""
