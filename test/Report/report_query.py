#!/usr/bin/env python3
"""Prints an amp report (JSON) as one `path = value` line per number.

Functions are addressed by name (`functions.mm.casts.inserted.bytes`), so
that FileCheck tests can match single numbers. Floats are printed with six
significant digits.

usage: report_query.py report.json
"""
import json
import sys


def flatten(prefix, value, out):
    if isinstance(value, dict):
        for key in sorted(value):
            flatten(prefix + [key], value[key], out)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            name = item.get("name") if isinstance(item, dict) else None
            flatten(prefix + [name if name else str(index)], item, out)
    else:
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, float):
            text = "%.6g" % value
        else:
            text = str(value)
        out.append("%s = %s" % (".".join(prefix), text))


def main():
    with open(sys.argv[1]) as f:
        report = json.load(f)
    lines = []
    flatten([], report, lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
