"""Render a published table as a Markdown pipe table: numeric columns right-aligned, text left-aligned."""


def _escape(text):
    return str(text).replace("|", r"\|")


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def markdown_table(header, rows):
    numeric = [bool(rows) and all(_is_number(row[i]) for row in rows) for i in range(len(header))]
    lines = [
        "| " + " | ".join(_escape(h) for h in header) + " |",
        "|" + "|".join(" ---: " if right else " :--- " for right in numeric) + "|",
    ]
    lines += ["| " + " | ".join(_escape(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"
