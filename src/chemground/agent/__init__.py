"""The tool pool and the tool-using agents: manifests, the registry, a time-limited runner,
the tool retriever, the chain-of-thought agent and HE-MCTS, and the tool-learning benchmark."""
