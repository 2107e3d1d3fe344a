"""QAC dataset generation (ChemLit-QA pipeline): generate, align, judge, filter, extend."""
