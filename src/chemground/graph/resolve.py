"""From what a user types (name, SMILES, InChIKey, CAS) to a Molecule node key of the graph."""

from __future__ import annotations

from chemground.chem.names import NameResolver
from chemground.errors import NotFoundError
from chemground.graph.export import molecule_key
from chemground.kb.store import KnowledgeBase


def molecule_key_for(text: str, resolver: NameResolver, kb: KnowledgeBase) -> str:
    """The graph key of ``text``: the KB compound's InChIKey, else the resolved structure's.

    The resolver decides the structure (names through the shared chain of
    :mod:`chemground.chem.resolvers`), so a route search starts from the compound a question
    about the same text would; only the key is the graph's.

    Args:
        text: a name, SMILES, InChI, InChIKey or CAS number.
        resolver: the resolver to use (the workspace's).
        kb: the knowledge base whose compound ids the graph keys stand for.

    Returns:
        The Molecule node key.

    Raises:
        ChemgroundError: ``text`` does not resolve (the resolver's error, which says why).
        NotFoundError: it resolved to neither a structure nor a KB compound.
    """
    resolution = resolver.resolve(text)
    if resolution.compound_id is not None:
        compound = kb.get_compound(resolution.compound_id, with_reactions=0)
        key = molecule_key(compound.inchikey, compound.id)
    elif resolution.structure is not None:
        key = resolution.structure.inchikey
    else:
        key = None
    if key is None:
        raise NotFoundError(
            f"{text!r} resolved to no structure and no KB compound, so it has no graph node"
        )
    return key
