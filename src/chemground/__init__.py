"""chemground: grounded chemistry question answering.

Compound and reaction tables, a reaction graph, literature passages and chemistry tools,
behind one path: question -> parse -> retrieve -> reason -> answer with evidence.
"""

__version__ = "0.1.0"
