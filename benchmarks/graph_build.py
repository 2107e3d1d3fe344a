"""Graph build time and size: the ORD KB (../shared/data/reactions) and the same KB scaled to >50k
reactions.

Run: python benchmarks/graph_build.py  (builds the ORD KB under /tmp once; see graph_common.py)

The scaled KB copies every ORD reaction three more times under new ids (same molecules, 4x
the reactions and edges), which is what a 50k-reaction rebuild has to move; the target is
<= 60 s on 2 cores. Also times the no-op rebuild (KB unchanged) and an incremental update.
"""

from __future__ import annotations

import shutil
import sqlite3
import time
from pathlib import Path

from graph_common import DEFAULT_KB, machine_note, ord_kb, write_section

from chemground.graph.build import build_graph
from chemground.settings import GraphSettings


def scaled_copy(source: Path, copies: int) -> Path:
    target = source.with_name(f"ord-kb-x{copies + 1}.sqlite")
    if target.exists():
        return target
    tmp = target.with_name(target.name + ".partial")
    shutil.copy(source, tmp)
    con = sqlite3.connect(tmp)
    cols = (
        "source, dataset, title, reaction_class, description, reaction_smiles, temperature_c, "
        "temperature_text, "
        "time_h, ph, pressure_bar, atmosphere, yield_percent, operations, notes, flags, provenance"
    )
    max_rowid = con.execute("SELECT MAX(rowid) FROM reactions").fetchone()[0]
    for n in range(1, copies + 1):
        con.execute(
            f"INSERT INTO reactions (id, {cols}) SELECT id || '#copy{n}', {cols} FROM reactions "
            f"WHERE rowid <= ?",
            (max_rowid,),
        )
        con.execute(
            "INSERT INTO participants SELECT r2.rowid, p.position, p.role, p.compound_id, p.name, "
            "p.smiles, p.inchikey, "
            "p.amount, p.unresolved_reason FROM participants p JOIN reactions r1 ON r1.rowid = "
            "p.reaction_rowid "
            f"JOIN reactions r2 ON r2.id = r1.id || '#copy{n}' WHERE r1.rowid <= ?",
            (max_rowid,),
        )
    con.commit()
    con.close()
    tmp.rename(target)
    return target


def measure(kb_path: Path) -> dict:
    settings = GraphSettings()
    full = build_graph(kb_path, settings=settings, full=True)
    started = time.perf_counter()
    noop = build_graph(kb_path, settings=settings)
    noop_s = time.perf_counter() - started
    assert noop.action == "unchanged"
    return {
        "kb": kb_path.name,
        "reactions": full.counts["reactions"],
        "molecules": full.counts["molecules"],
        "edges": sum(full.counts["edges"].values()),
        "seconds": full.seconds,
        "export": full.export_seconds,
        "load": full.load_seconds,
        "mb": full.size_bytes / 1e6,
        "noop": noop_s,
        "skipped": full.skipped_participants,
    }


def main() -> None:
    kb = ord_kb(DEFAULT_KB)
    rows = [measure(kb), measure(scaled_copy(kb, 3))]
    header = (
        "| KB | reactions | molecules | edges | full build (s) | export / load (s) | graph "
        "size (MB) | no-op rebuild (s) |"
    )
    lines = [header, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        lines.append(
            f"| {r['kb']} | {r['reactions']:,} | {r['molecules']:,} | {r['edges']:,} | "
            f"{r['seconds']:.1f} | "
            f"{r['export']:.1f} / {r['load']:.1f} | {r['mb']:.1f} | {r['noop']:.2f} |"
        )
    table = "\n".join(lines)
    print(table)
    write_section(
        "build",
        f"""## Graph build (LadybugDB, bulk COPY from Arrow tables)

{machine_note()}
KB: `build_kb` (whole dictionary + 273 starter reactions) plus the 8 ORD USPTO shards of
`shared/data/reactions/ord_uspto_grants/original_pb` imported with `kb.importers.import_file`.
`{rows[1]["kb"]}` is that KB with every ORD reaction copied three more times under new ids (same molecules)
to measure a >50k-reaction rebuild against the 60 s target. {rows[0]["skipped"]:,} participants of the ORD KB
have neither a structure nor a KB compound (e.g. "ice water", "solution") and are left out of the graph.

{table}

Script: `python benchmarks/graph_build.py`.""",
    )


if __name__ == "__main__":
    main()
