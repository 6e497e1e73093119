"""The corrections page's table, from the log in corrections.toml (read by lib/corrections.py).

One row per published statement whose meaning changed: its date, its page, the
old and the new wording, the evidence and the test that now checks it, in
English and in Chinese from the same list. Numbers the new wording and the
evidence quote are written {{ <chapter>.<what>.<value> }}, which the site fills
in when it renders the page.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.corrections import HEADER, load
from lib.publish import table, value

# --8<-- [start:publish]
corrections = load()  # checked: known fields, dates, pages, tests, one record per id
rows = {language: [c.row(language) for c in corrections] for language in HEADER}
table("corrections", HEADER["en"], rows["en"], zh=(HEADER["zh"], rows["zh"]))
value("n_corrections", len(corrections))
# --8<-- [end:publish]
