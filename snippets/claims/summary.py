"""The claims page's tables and counts, from the inventory in claims.toml (read by lib/claims.py).

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
from lib.claims import HEADER, load
from lib.plotting import COLORS
from lib.publish import table, value

# --8<-- [start:publish]
inventory = load()  # checked: known fields, verdicts and topics, one record per id
for topic in inventory.topics:
    table(topic, HEADER["en"], inventory.table_rows(topic), zh=(HEADER["zh"], inventory.table_rows(topic, "zh")))
claims = inventory.claims
ids = [claim.id for claim in claims]
kinds = [claim.verdict for claim in claims]
for kind in ("holds", "only_when", "fails", "unchecked"):
    value(f"n_{kind}", kinds.count(kind))
value("n_claims", len(claims))
value("n_seed_claims", sum(cid.startswith("C") for cid in ids))
value("n_seed000_claims", sum(cid.startswith("C000") for cid in ids))
value("n_seed003_claims", sum(cid.startswith("C003") for cid in ids))
value("n_common_claims", sum(cid.startswith("G") for cid in ids))
value("verdicts", {claim.id: claim.verdict_en for claim in claims}, f"{len(claims)} verdicts")
# --8<-- [end:publish]

labels = {"holds": "holds", "only_when": "holds only when ...", "fails": "does not hold",
          "unchecked": "cannot be checked here"}
colours = {"holds": COLORS[2], "only_when": COLORS[5], "fails": COLORS[3], "unchecked": "#999999"}
fig, ax = plt.subplots(num="verdicts", figsize=(8, 4.2), layout="constrained")
left = np.zeros(len(inventory.topics))
for kind, label in labels.items():
    per_topic = np.array([sum(c.topic == t and c.verdict == kind for c in claims)
                          for t in inventory.topics])  # (n_topics,)
    ax.barh(list(inventory.topics.values()), per_topic, left=left, color=colours[kind], label=label)
    left += per_topic
ax.invert_yaxis()
ax.set_xlim(0, left.max() + 10)  # room for the legend
ax.set_xlabel("number of claims")
ax.legend(loc="lower right", frameon=False)
plt.show()
