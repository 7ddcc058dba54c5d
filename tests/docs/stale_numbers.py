#!/usr/bin/env python3
"""docs_stale_numbers: the measured numbers the docs print are the numbers their commands print today.

A page marks a table or a fenced block whose numbers a cheap, deterministic command regenerates
with an HTML comment on the line before it:

    <!-- stale-check: {tests} "events: the pendulum from horizontal*" | columns 3,4,5,6 -->

The command (placeholders {tests}: the unit-test binary, {apps}: the apps' build directory,
{tmp}: a scratch directory) is run once; every number in the marked cells (a table's listed
columns, 1-based, or a fenced block's every number) must equal, to the digits the page prints,
some number of the command's output. A page number that no output number rounds to is stale. For numbers inside prose, `| values a, b`
checks just those, each of which must also appear in the paragraph that follows the marker.
Timing figures are never marked: they are dated records, not checks.
"""
import argparse
import math
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile

MARKER = re.compile(r"^<!-- stale-check: (?P<command>.*?)(?: \| columns (?P<columns>[\d,]+))?"
                    r"(?: \| values (?P<values>[^>]+?))? -->\s*$")
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")


def digits_after_point(text):
    """The resolution a page's number is printed to: half a unit in its last digit."""
    mantissa, _, exponent = text.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 0.5 * 10.0 ** (-decimals + (int(exponent) if exponent else 0))


def matches(page_text, printed):
    value = float(page_text)
    half_unit = digits_after_point(page_text) * (1 + 1e-9)
    return any(abs(p - value) <= half_unit for p in printed)


def marked_block(lines, start):
    """The table rows or the fenced block after the marker at lines[start]."""
    i = start + 1
    if lines[i].startswith("```"):
        j = i + 1
        while not lines[j].startswith("```"):
            j += 1
        return "block", lines[i + 1:j]
    rows = []
    while i < len(lines) and lines[i].startswith("|"):
        rows.append(lines[i])
        i += 1
    return "table", rows[2:]  # header and separator carry no measurements


def cells_to_check(kind, rows, columns):
    for row in rows:
        if kind == "block":
            yield row, row
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", row.strip().strip("|"))]
        for column in columns:
            if column - 1 < len(cells):
                yield row, cells[column - 1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source-dir", required=True, type=pathlib.Path)
    parser.add_argument("--tests", required=True)
    parser.add_argument("--apps", required=True)
    args = parser.parse_args()

    pages = [args.source_dir / "README.md"] + sorted((args.source_dir / "docs").glob("*.md"))
    outputs = {}
    stale, checked, markers = [], 0, 0
    with tempfile.TemporaryDirectory() as scratch:
        for page in pages:
            lines = page.read_text().splitlines()
            for number, line in enumerate(lines):
                match = MARKER.match(line)
                if not match:
                    continue
                markers += 1
                command = match["command"].format(tests=args.tests, apps=args.apps,
                                                  tmp=pathlib.Path(scratch) / f"run{markers}")
                if command not in outputs:
                    run = subprocess.run(shlex.split(command), capture_output=True, text=True, timeout=300)
                    if run.returncode != 0:
                        print(f"{page.name}:{number + 1}: the command failed ({run.returncode}): {command}\n"
                              f"{run.stdout[-2000:]}{run.stderr[-2000:]}")
                        return 1
                    outputs[command] = [float(x) for x in NUMBER.findall(run.stdout + run.stderr)
                                        if math.isfinite(float(x))]
                printed = outputs[command]
                if match["values"]:
                    paragraph = []
                    for following in lines[number + 1:]:
                        if not following.strip():
                            break
                        paragraph.append(following)
                    text_after = " ".join(paragraph)
                    for text in (v.strip() for v in match["values"].split(",")):
                        checked += 1
                        if text not in text_after:
                            stale.append(f"{page.name}:{number + 1}: {text} is not in the paragraph it marks")
                        elif not matches(text, printed):
                            stale.append(f"{page.name}:{number + 1}: {text} (in: {text_after[:120]}...)")
                    continue
                columns = [int(c) for c in match["columns"].split(",")] if match["columns"] else []
                kind, rows = marked_block(lines, number)
                if not rows:
                    print(f"{page.name}:{number + 1}: the marker is not followed by a table or a fenced block")
                    return 1
                for row, cell in cells_to_check(kind, rows, columns):
                    for text in NUMBER.findall(cell):
                        checked += 1
                        if not matches(text, printed):
                            stale.append(f"{page.name}:{number + 1}: {text} (row: {row.strip()})")
    print(f"{markers} marked tables and blocks, {checked} numbers checked against their commands")
    if markers == 0:
        print("no stale-check markers found: the docs lost them")
        return 1
    for line in stale:
        print("stale:", line)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
