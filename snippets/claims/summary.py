"""The claims page's tables and counts, from the inventory in lib/claims_inventory.py.

One table per topic, in English and in Chinese from the same list; each
evidence cell quotes measured values as {{ <chapter>.<what>.<value> }}, which the site
fills in when it renders the page. The counts and the bar chart are computed
from the same list, never typed.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.claims_inventory import HEADER, TOPICS, claims, table_rows, verdict_kind
from lib.plotting import COLORS
from lib.publish import table, value

inventory = claims()
ids = [claim["id"] for claim in inventory]
duplicates = sorted({cid for cid in ids if ids.count(cid) > 1})
if duplicates:
    raise ValueError(f"claim ids listed twice: {duplicates}")
unknown = sorted({claim["topic"] for claim in inventory} - set(TOPICS))
if unknown:
    raise ValueError(f"claims with unknown topics {unknown}; known topics: {sorted(TOPICS)}")

# --8<-- [start:publish]
for topic in TOPICS:
    table(topic, HEADER["en"], table_rows(topic), zh=(HEADER["zh"], table_rows(topic, "zh")))
kinds = [verdict_kind(claim["verdict"]) for claim in inventory]
for kind in ("holds", "only_when", "fails", "unchecked"):
    value(f"n_{kind}", kinds.count(kind))
value("n_claims", len(inventory))
value("n_seed_claims", sum(cid.startswith("C") for cid in ids))
value("n_seed000_claims", sum(cid.startswith("C000") for cid in ids))
value("n_seed003_claims", sum(cid.startswith("C003") for cid in ids))
value("n_common_claims", sum(cid.startswith("G") for cid in ids))
value("verdicts", {claim["id"]: claim["verdict"] for claim in inventory}, f"{len(inventory)} verdicts")
# --8<-- [end:publish]

labels = {"holds": "holds", "only_when": "holds only when ...", "fails": "does not hold",
          "unchecked": "cannot be checked here"}
colours = {"holds": COLORS[2], "only_when": COLORS[5], "fails": COLORS[3], "unchecked": "#999999"}
fig, ax = plt.subplots(num="verdicts", figsize=(8, 4.2), layout="constrained")
left = np.zeros(len(TOPICS))
for kind, label in labels.items():
    per_topic = np.array([sum(c["topic"] == t and verdict_kind(c["verdict"]) == kind for c in inventory)
                          for t in TOPICS])  # (n_topics,)
    ax.barh(list(TOPICS.values()), per_topic, left=left, color=colours[kind], label=label)
    left += per_topic
ax.invert_yaxis()
ax.set_xlim(0, left.max() + 10)  # room for the legend
ax.set_xlabel("number of claims")
ax.legend(loc="lower right", frameon=False)
plt.show()
