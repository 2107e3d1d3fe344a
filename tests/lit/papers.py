"""Small papers written by the tests themselves: a real PDF (reportlab), JATS XML, text, HTML."""

from __future__ import annotations

from pathlib import Path

HEADER = "Journal of Test Chemistry 12 (2024) 100-110"
PDF_PAGES = [
    [
        "Catalytic hydrogenation of benzaldehyde",
        "",
        "Abstract",
        "We report the hydrogenation of benzaldehyde to benzyl alcohol over palladium.",
        "The reaction runs in ethanol at 25 °C [1]. Yields reached 95 % after two hours [2,3].",
        "",
        "1. Introduction",
        "Benzyl alcohol is a common solvent and fragrance ingredient used in many products.",
        "Earlier work used sodium borohydride as the reducing agent in methanol.",
    ],
    [
        "2. Results",
        "Palladium on carbon gave full conversion within two hours at room temperature.",
        "Platinum was slower and gave toluene as a side product through hydrogenolysis.",
        "The catalyst could be reused five times without loss of activity.",
        "",
        "References",
        "[1] A. Author, J. Chem. 2001, 12, 3.",
        "[2] B. Author, Org. Lett. 2003, 5, 1.",
        "[3] C. Author, Science 2010, 1, 2.",
    ],
    [
        "Supporting Information",
        "Additional spectra of the benzyl alcohol product are shown in Figure S1.",
        "The NMR data match literature values for the alcohol.",
    ],
]

JATS = """<?xml version="1.0"?>
<article><front><article-meta><title-group><article-title>Oxidation of toluene</article-title></title-group>
<abstract><p>Toluene is oxidised to benzoic acid by potassium permanganate.</p></abstract></article-meta></front>
<body><sec><title>Introduction</title><p>Benzoic acid is a food preservative <xref ref-type="bibr" rid="r1">[1]</xref>.
It is produced industrially from toluene by air oxidation over cobalt catalysts.</p></sec>
<sec><title>Methods</title><p>Toluene (10 mmol) was heated with KMnO4 in water at reflux for 4 h.</p>
<fig id="f1"><label>Figure 1</label><caption><p>Yield of benzoic acid against time.</p></caption></fig></sec></body>
<back><ref-list><ref id="r1"><mixed-citation>D. Author, J. Org. Chem. 1999, 64, 1.</mixed-citation></ref></ref-list></back>
</article>"""  # noqa: E501 - markup as a publisher writes it

TEXT = """Aspirin synthesis

Acetylsalicylic acid is made from salicylic acid and acetic anhydride.
The reaction is catalysed by sulfuric acid (Smith et al., 2019).

Results

The crude product was recrystallised from water and melted at 135 °C.
"""

HTML = """<html><head><title>Esterification notes</title></head><body>
<nav><a href="/">Home</a> | <a href="/about">About us</a></nav>
<article><h1>Fischer esterification of acetic acid</h1>
<h2>Introduction</h2><p>Ethyl acetate forms when acetic acid is heated with ethanol and a little sulfuric acid.<sup><a href="#ref1">1</a></sup>
The equilibrium is shifted by removing water with a Dean-Stark trap, as many textbooks describe in detail.</p>
<h2>Results</h2><p>The yield of ethyl acetate was 65% after 2 h; the surface area was 12 m<sup>2</sup> per gram of catalyst used here.</p>
<h2>References</h2><ol><li id="ref1">E. Fischer, Ber. 1895, 28, 3252.</li></ol>
</article><footer>Copyright 2024 Example Press</footer></body></html>"""  # noqa: E501 - markup as a website writes it


def write_pdf(
    path: Path, pages=PDF_PAGES, title: str = "Catalytic hydrogenation of benzaldehyde"
) -> Path:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=A4)
    c.setTitle(title)
    for number, lines in enumerate(pages, start=1):
        c.setFont("Helvetica", 9)
        c.drawString(72, 800, HEADER)
        c.setFont("Helvetica", 11)
        y = 770
        for line in lines:
            c.drawString(72, y, line)
            y -= 15
        c.setFont("Helvetica", 9)
        c.drawString(290, 40, str(number))
        c.showPage()
    c.save()
    return path


def write_encrypted_pdf(source: Path, path: Path, password: str = "secret") -> Path:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for page in PdfReader(str(source)).pages:
        writer.add_page(page)
    writer.encrypt(user_password=password, owner_password=password, algorithm="RC4-128")
    with path.open("wb") as handle:
        writer.write(handle)
    return path


def write_corpus(folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = {
        "pdf": write_pdf(folder / "hydrogenation.pdf"),
        "xml": folder / "oxidation.xml",
        "text": folder / "aspirin.txt",
        "html": folder / "esterification.html",
    }
    paths["xml"].write_text(JATS, encoding="utf-8")
    paths["text"].write_text(TEXT, encoding="utf-8")
    paths["html"].write_text(HTML, encoding="utf-8")
    return paths
