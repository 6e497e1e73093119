"""Render a published table as a Markdown pipe table."""


def _escape(text):
    return str(text).replace("|", r"\|")


def markdown_table(header, rows):
    lines = [
        "| " + " | ".join(_escape(h) for h in header) + " |",
        "| :--- |" + "".join(" ---: |" for _ in header[1:]),  # labels left, numbers right
    ]
    lines += ["| " + " | ".join(_escape(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"
