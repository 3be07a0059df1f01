"""What a run looks like to a person: the run document and its table as text, HTML and the
labextension's JSON (``render``), the live table while it runs (``live``), the terminal's progress
line (``progress``), and what they share: one-line phrases and the table's columns (``phrases``),
what a candidate's row shows beyond its verdict (``row_details``), and the text and HTML tables
(``textview``, ``html``).  Host side only: the zygote and the child never import it; ``render``
is what a result shows itself through (contracts/display.py's ``Shows``), imported when a result
is first shown."""
