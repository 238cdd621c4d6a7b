"""Write the expressions of the CEL conformance tests, one to a file.

Usage: python3 cel_exprs.py CEL_EXPR_MODULE_DIR OUT_DIR

CEL_EXPR_MODULE_DIR is cel.dev/expr's folder, which holds the CEL
specification's conformance tests (tests/simple/testdata/*.textproto).
Every test's `expr` field is written as it is, its text-format string
escapes decoded (a CEL escape, written \\\\U... in the file, stays a CEL
escape). A test's bindings, declarations and expected values are not
used: an expression that needs a variable or message type the cel
subject's environment does not declare is rejected by the subject, as any
input is, and does not count.
"""
import codecs
import glob
import os
import re
import sys
import warnings

# escape_decode warns of a backslash it keeps, such as a CEL escape's.
warnings.simplefilter("ignore", DeprecationWarning)

src, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
field = re.compile(r"""^\s*expr:\s*(("(?:[^"\\]|\\.)*"\s*)+|('(?:[^'\\]|\\.)*'\s*)+)$""", re.M)
piece = re.compile(r""""((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'""")
n = 0
for path in sorted(glob.glob(os.path.join(src, "tests", "simple", "testdata", "*.textproto"))):
    for m in field.finditer(open(path, encoding="utf-8").read()):
        raw = "".join(a or b for a, b in piece.findall(m.group(1)))
        expr = codecs.escape_decode(raw.encode("utf-8"))[0].decode("utf-8", "replace")
        with open(os.path.join(out, f"{os.path.basename(path)}-{n:05d}"), "w", encoding="utf-8") as f:
            f.write(expr)
        n += 1
print(f"{n} expressions in {out}")
