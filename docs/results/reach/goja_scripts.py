"""Write the JavaScript programs of goja's own tests, one to a file.

Usage: python3 goja_scripts.py GOJA_MODULE_DIR OUT_DIR

goja's tests (*_test.go) hold most of their programs as Go raw strings
assigned to SCRIPT, run by testScript or with a small assertion library
(testScriptWithTestLib). Each such string is written as it is, after a
prelude that defines assert and its methods as functions that do
nothing, so that an assertion neither fails nor runs its argument. The
goja subject compiles every program as strict mode code; a test written
for sloppy mode that strict mode refuses (with, assignment to eval) is
rejected, as any input is, and does not count.
"""
import os
import re
import sys
import glob

src, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
prelude = "function assert(c, m) {}\n" + "".join(
    f"assert.{n} = function () {{}};\n"
    for n in ["sameValue", "notSameValue", "throws", "compareArray", "deepEqual"])
n = 0
for path in sorted(glob.glob(os.path.join(src, "*_test.go"))):
    for m in re.finditer(r"\bSCRIPT\s*:?=\s*`([^`]*)`", open(path).read()):
        with open(os.path.join(out, f"{os.path.basename(path)}-{n:04d}"), "w") as f:
            f.write(prelude + m.group(1))
        n += 1
print(f"{n} programs in {out}")
