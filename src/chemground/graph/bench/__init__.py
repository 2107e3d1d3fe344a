"""The single- and multi-step graph retrieval benchmark: task generation, metrics, runner."""
