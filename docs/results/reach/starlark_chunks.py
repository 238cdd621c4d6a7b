"""Split go.starlark.net's own test scripts into modules the starlark subject can run.

Usage: python3 starlark_chunks.py STARLARK_MODULE_DIR OUT_DIR

Each script of STARLARK_MODULE_DIR/starlark/testdata is cut at its "---"
lines, as the library's own test runner cuts it. The assert module is not
loaded (the subject loads nothing): its load line is dropped, assert.f(...)
becomes assert_f(...), and every chunk starts with assert_f and freeze
defined as functions that do nothing, so an assertion neither fails nor
runs its argument (assert.fails' lambda is never called). Nothing else is
changed: a chunk that needs another module, top-level control, global
reassignment or recursion is still rejected by the subject.
"""
import glob
import os
import re
import sys

src, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
names = ["eq", "ne", "true", "lt", "contains", "fail", "fails"]
prelude = "".join(f"def assert_{n}(*a, **k):\n    pass\n" for n in names)
prelude += "def freeze(x):\n    return x\n"
load = re.compile(r"""^load\(["']assert.star["'], ["']assert["'](, ["']freeze["'])?\)\s*$""")
call = re.compile(r"\bassert\.(" + "|".join(names) + r")\(")
i = 0
for path in sorted(glob.glob(os.path.join(src, "starlark", "testdata", "*.star"))):
    for chunk in re.split(r"\n---\n", open(path).read()):
        body = "\n".join(l for l in chunk.split("\n") if not load.match(l))
        body = call.sub(r"assert_\1(", body)
        name = f"{os.path.basename(path)}-{i:04d}"
        with open(os.path.join(out, name), "w") as f:
            f.write(prelude + body + "\n")
        i += 1
print(f"{i} chunks in {out}")
