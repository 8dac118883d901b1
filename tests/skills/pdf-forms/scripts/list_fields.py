#!/usr/bin/env python3
"""List the fillable fields of a PDF form (a rough scan of the AcroForm)."""
import re
import sys


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: list_fields.py FORM.pdf", file=sys.stderr)
        return 2
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    names = sorted(set(m.decode("latin-1") for m in re.findall(rb"/T\s*\(([^)]*)\)", data)))
    for name in names:
        print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
