"""Compare the blocks two Go coverage profiles reach.

Usage: python3 compare.py GENERATED.cov TESTS.cov MODULE_DIR

MODULE_DIR is the covered module's folder (its go.mod names the module).

Prints the blocks each reaches, their union, and the functions (by the
nearest preceding func line) holding the blocks only one of them reaches.
"""
import collections
import re
import sys


def load(path):
    blocks = {}
    for line in open(path).read().split("\n")[1:]:
        if line:
            block, _, count = line.rsplit(" ", 2)
            blocks[block] = max(blocks.get(block, 0), int(count))
    return blocks


gen, spec, mod = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3]
modpath = re.search(r"^module\s+(\S+)", open(mod + "/go.mod").read(), re.M).group(1)
G = {b for b, n in gen.items() if n}
S = {b for b, n in spec.items() if n}
print(f"blocks {len(gen)}: generated {len(G)}, tests {len(S)}, union {len(G | S)}, "
      f"tests only {len(S - G)}, generated only {len(G - S)}, neither {len(set(gen) - G - S)}")
files = {}


def func(block):
    name, span = block.split(":")
    line = int(span.split(".")[0])
    path = mod + "/" + name[len(modpath) + 1:]
    if path not in files:
        files[path] = open(path).read().split("\n")
    for text in reversed(files[path][:line]):
        m = re.match(r"^func (\([^)]*\) )?(\w+)", text)
        if m:
            return name.split("/")[-1] + ":" + m.group(2)
    return name


for title, blocks in (("tests only", S - G), ("generated only", G - S)):
    top = collections.Counter(func(b) for b in blocks).most_common(25)
    print(f"{title}: " + ", ".join(f"{f} {n}" for f, n in top))
