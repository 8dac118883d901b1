#!/usr/bin/env python3
"""Summarise a CSV file: rows, columns, numeric min/max/mean."""
import csv
import sys


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: summarize.py FILE.csv", file=sys.stderr)
        return 2
    with open(sys.argv[1], newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        print("empty file")
        return 0
    header, body = rows[0], rows[1:]
    print(f"rows: {len(body)}")
    print(f"columns: {', '.join(header)}")
    for i, name in enumerate(header):
        cells = [r[i] for r in body if i < len(r) and r[i] != ""]
        try:
            nums = [float(c) for c in cells]
        except ValueError:
            continue
        if nums:
            print(f"{name}: min {min(nums):g}, max {max(nums):g}, mean {sum(nums) / len(nums):g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
