"""List the inputs an arbor coverage file records as accepted.

Usage: python3 accepted.py RECORD.jsonl > LIST

Prints the path of every input whose outcome is ok, one a line, and on
standard error how many inputs had each outcome.
"""
import collections
import json
import sys

outcomes = collections.Counter()
with open(sys.argv[1]) as f:
    next(f)  # the header line
    for line in f:
        rec = json.loads(line)
        outcomes[rec["outcome"]] += 1
        if rec["outcome"] == "ok":
            print(rec["input"])
print(dict(outcomes), file=sys.stderr)
