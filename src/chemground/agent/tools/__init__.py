"""Tool implementations, one module per tool family (see
``chemground.agent.registry.TOOL_MODULES``)."""
