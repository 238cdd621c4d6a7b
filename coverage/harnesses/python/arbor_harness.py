"""arbor's harness for Python: calls one function per input, in-process,
and tells arbor which of the recorded functions ran.

It speaks ARBOR2 (see coverage/native.go): requests on fd 3, replies on
fd 4, and fd 5, never written, reads end-of-file when arbor is gone. A
request is a kind byte, a 16-byte token, a uint32 length and the input;
a reply starts with its request's token, so that what the subject writes
to the reply pipe is not taken for a reply. Before the subject is
imported the pipes move above fd 100 and /dev/null takes 3, 4 and 5, so
that a subject writing to fd 4 by habit writes to nothing. Its
one argument is a JSON object:

    entry    "module:function", called with each input as bytes
    sources  folders put first on the module search path
    cover    modules or packages whose functions are recorded
             (default: the entry's module)
    reject   exception classes that mean the input was rejected
             (default: ValueError)
    root     if set, files under it are named by their path relative
             to it, as a coverage report read with that root names them
    mode     how lines are measured: "collector" (default), "api" or
             "trace"; see measure()

A function counts as run when a line of its body ran, its def line
belonging to the code around it, as coverage/report.AssignLines assigns
the lines of a coverage.py report; names are "pkg.mod.Class.method", so
that labels compare with those of coverage.py run once per input.
"""

import ast
import importlib
import importlib.machinery
import json
import os
import struct
import sys
import threading

try:
    import fcntl
except ImportError:  # not a Unix system: the descriptors stay
    fcntl = None
import time


def main():
    config = json.loads(sys.argv[1])
    fds = hide((3, 4, 5))
    requests = os.fdopen(fds[0], "rb", buffering=1 << 16)
    replies = os.fdopen(fds[1], "wb", buffering=1 << 16)
    parent = os.fdopen(fds[2], "rb", buffering=0)
    threading.Thread(target=watch, args=(parent,), daemon=True).start()
    limit_memory(os.environ.get("ARBOR_HARNESS_MEMORY", ""))
    replies.write(b"ARBOR2\n")
    try:
        subject = Subject(config)
        status = "ok"
    except Exception as e:  # the reason arbor shows the user
        subject, status = None, "python harness: %s" % " ".join(str(e).split())
    replies.write(status.encode("utf-8", "replace") + b"\n")
    names = "".join(n + "\n" for n in subject.names) if subject else ""
    blob(replies, names.encode("utf-8"))
    replies.flush()
    if subject is None:
        return
    while True:
        head = requests.read(21)  # kind, token, length
        if len(head) < 21 or head[:1] == b"Q":
            return
        kind, token, n = head[:1], head[1:17], struct.unpack("<I", head[17:])[0]
        data = requests.read(n)
        if len(data) < n:
            return
        outcome, dur, msg, frames, ran = subject.run(data, kind == b"R")
        replies.write(token + bytes((outcome,)) + struct.pack("<Q", dur))
        blob(replies, msg.encode("utf-8", "replace"))
        blob(replies, frames.encode("utf-8", "replace"))
        blob(replies, b"".join(struct.pack("<II", i, c) for i, c in sorted(ran.items())))
        replies.flush()


def hide(fds):
    """Moves the descriptors above 100, not inherited by the programs the
    subject starts, and puts /dev/null where they were; where that fails
    they stay where they are, not inherited either."""
    moved = []
    try:
        null = os.open(os.devnull, os.O_RDWR)
    except OSError:
        null = -1
    for fd in fds:
        try:
            high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 100)
        except (OSError, AttributeError, NameError):
            high = -1
        if high >= 0 and null >= 0:
            os.dup2(null, fd, inheritable=False)
            moved.append(high)
        else:
            if high >= 0:
                os.close(high)
            os.set_inheritable(fd, False)
            moved.append(fd)
    if null >= 0:
        os.close(null)
    return moved


def watch(parent):
    while parent.read(1):
        pass
    os._exit(3)


def blob(w, b):
    w.write(struct.pack("<I", len(b)))
    w.write(b)


def limit_memory(text):
    try:
        n = int(text)
    except ValueError:
        return
    if n <= 0:
        return
    try:
        import resource
    except ImportError:
        return
    # RLIMIT_DATA counts what the allocator maps on Linux, but not the
    # address space threads reserve for their stacks, which RLIMIT_AS
    # would.
    which = getattr(resource, "RLIMIT_DATA", None) or resource.RLIMIT_AS
    try:
        soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            n = min(n, hard)
        resource.setrlimit(which, (n, hard))
    except (ValueError, OSError):
        pass


class Subject:
    def __init__(self, config):
        entry = config.get("entry") or ""
        mod_name, _, func_name = entry.partition(":")
        if not mod_name or not func_name:
            raise ValueError("entry %r: want module:function" % entry)
        for src in reversed(config.get("sources") or []):
            sys.path.insert(0, os.path.abspath(src))
        root = config.get("root") or ""
        self.root = os.path.realpath(root) if root else ""
        self.files = {}  # canonical path -> per line: function id or -1
        self.modules = []  # the covered modules' names
        self.caches = {}  # covered module name -> its functions' cache_clear
        self.defs = {}  # canonical path -> def (or first decorator) line -> id
        self.names = []
        for name in config.get("cover") or [mod_name]:
            for path, module in module_files(name):
                self.add_file(path, module)
        if not self.names:
            raise ValueError("the covered modules (%s) define no functions" % ", ".join(config.get("cover") or [mod_name]))
        mode = os.environ.get("ARBOR_PYTHON_MODE") or config.get("mode") or "collector"
        self.measure = measure(mode, self.files, self.defs)
        # What runs when the entry's module is imported runs before every
        # input of a process-per-input run too: it counts for every input.
        # But coverage.py's command line, the process-per-input way to
        # measure, imports some standard-library modules before it starts
        # measuring (json, configparser, tomllib; its console script's
        # importlib.metadata brings email and, through pathlib,
        # urllib.parse); so they are imported here before too.
        for name in ("importlib.metadata", "coverage.cmdline"):
            try:
                importlib.import_module(name)
            except ImportError:
                pass
        self.measure.begin()
        try:
            module = importlib.import_module(mod_name)
        finally:
            self.always = self.measure.end()
        fn = getattr(module, func_name, None)
        if not callable(fn):
            raise ValueError("module %s (%s) has no function %s" % (mod_name, getattr(module, "__file__", "?"), func_name))
        self.fn = fn
        # After the import, so that what the classes' modules run when
        # imported is measured as it would be in a run of its own.
        self.reject = tuple(find_class(c) for c in (config.get("reject") or ["ValueError"]))

    def add_file(self, path, module):
        with open(path, "rb") as f:
            tree = ast.parse(f.read(), path)
        ranges = []  # [symbol, body line, end line, def line], as report.PythonFunctions

        def walk(node, prefix):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    name = prefix + child.name
                    start = min([child.lineno] + [d.lineno for d in child.decorator_list])
                    ranges.append([name, child.body[0].lineno, child.end_lineno, start])
                    walk(child, name + ".")
                elif isinstance(child, ast.ClassDef):
                    walk(child, prefix + child.name + ".")
                else:
                    walk(child, prefix)

        walk(tree, "")
        self.modules.append(module)
        real = os.path.realpath(path)
        if self.root and real.startswith(self.root + os.sep):
            rel = os.path.relpath(real, self.root)[:-3].replace(os.sep, ".")
            module = rel[: -len(".__init__")] if rel.endswith(".__init__") else rel
        last = max([r[2] for r in ranges] + [0])
        lines = [-1] * (last + 1)
        seen = set()
        defs = {}
        # Lines go to the innermost function holding them: the latest body
        # start among those at or before the line. A symbol defined twice
        # keeps its first range, as report.AssignLines does.
        for symbol, body, end, start in sorted(ranges, key=lambda r: r[1]):
            if symbol in seen:
                fid = -2
            else:
                seen.add(symbol)
                fid = len(self.names)
                self.names.append(module + "." + symbol if module else symbol)
                defs[start] = fid
            for ln in range(body, end + 1):
                lines[ln] = fid
        table = [i if i >= 0 else -1 for i in lines]
        for p in {real, os.path.normcase(os.path.abspath(path))}:
            self.files[p], self.defs[p] = table, defs

    def run(self, data, recorded):
        outcome, err = 0, None
        m = self.measure
        if recorded:
            self.clear_caches()
            m.begin()
        start = time.perf_counter_ns()
        try:
            self.fn(data)
        except (RecursionError, MemoryError) as e:
            outcome, err = 2, e
        except self.reject as e:
            outcome, err = 1, e
        except BaseException as e:  # SystemExit and KeyboardInterrupt too
            outcome, err = 2, e
        dur = time.perf_counter_ns() - start
        ran = {}
        if recorded:
            ran = m.end()
            for i, c in self.always.items():
                ran[i] = ran.get(i, 0) + c
        # Only now: str() of an exception may run the subject's code.
        msg, frames = "", ""
        try:
            if outcome == 1:
                msg = str(err)
            elif outcome == 2:
                msg, frames = describe(err), self.frames(err)
        except Exception as e:
            msg = "(the exception cannot be described: %s)" % type(e).__name__
        return outcome, dur, msg, frames, ran

    def clear_caches(self):
        """Empties the functools caches of the covered modules, so that an
        input runs the functions a cache would spare it, as in a process
        of its own (urllib.parse caches urlsplit and its quoters)."""
        for name in self.modules:
            clears = self.caches.get(name)
            if clears is None:
                mod = sys.modules.get(name)
                if mod is None:
                    continue
                clears = self.caches[name] = []
                for obj in list(vars(mod).values()):
                    for o in [obj] + (list(vars(obj).values()) if isinstance(obj, type) else []):
                        clear = getattr(o, "cache_clear", None)
                        if callable(clear) and hasattr(o, "cache_info"):
                            clears.append(clear)
            for clear in clears:
                clear()

    def frames(self, e):
        """The innermost three frames of the traceback, preferring those
        in recorded files: "module.function:line"."""
        stack = []
        tb = e.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename != __file__:
                stack.append((tb.tb_frame, tb.tb_lineno))
            tb = tb.tb_next
        mine = [f for f in stack if os.path.realpath(f[0].f_code.co_filename) in self.files]
        out = []
        for frame, line in reversed(mine or stack):
            code = frame.f_code
            name = getattr(code, "co_qualname", code.co_name)
            out.append("%s.%s:%d" % (frame.f_globals.get("__name__", "?"), name, line))
            if len(out) == 3:
                break
        return "\n".join(out)


def describe(e):
    text = str(e)
    return type(e).__name__ + (": " + text if text else "")


def find_class(name):
    import builtins

    mod, _, attr = name.rpartition(".")
    obj = getattr(builtins, name, None) if not mod else None
    if obj is None and mod:
        try:
            obj = importlib.import_module(mod)
        except ImportError as e:
            raise ValueError("reject %s: %s" % (name, e))
        obj = getattr(obj, attr, None)
    if not (isinstance(obj, type) and issubclass(obj, BaseException)):
        raise ValueError("reject %s: no such exception class" % name)
    return obj


def module_files(name):
    """The source files of a module, or of a package and every module
    below it, with their module names, found without importing them (so
    that what they run at import time is seen)."""
    parts = name.split(".")
    path = None
    spec = None
    for i in range(len(parts)):
        full = ".".join(parts[: i + 1])
        spec = importlib.machinery.PathFinder.find_spec(full, path)
        if spec is None:
            raise ValueError("cover %s: no module %s on the search path" % (name, full))
        path = spec.submodule_search_locations
        if path is None and i < len(parts) - 1:
            raise ValueError("cover %s: %s is not a package" % (name, full))
    if path is None:
        if not (spec.origin or "").endswith(".py"):
            raise ValueError("cover %s: no Python source (%s)" % (name, spec.origin))
        return [(spec.origin, name)]
    out = []
    for base in path:
        for dirpath, dirs, files in os.walk(base):
            dirs[:] = sorted(d for d in dirs if d.isidentifier())
            rel = os.path.relpath(dirpath, base)
            prefix = name if rel == "." else name + "." + rel.replace(os.sep, ".")
            for f in sorted(files):
                if f.endswith(".py"):
                    stem = f[:-3]
                    if stem == "__init__":
                        out.append((os.path.join(dirpath, f), prefix))
                    elif stem.isidentifier():
                        out.append((os.path.join(dirpath, f), prefix + "." + stem))
    return out


def measure(mode, files, defs):
    if mode == "trace":
        return TraceMeasure(defs)
    try:
        import coverage
    except ImportError:
        raise ValueError("coverage.py is not installed for %s (Debian: python3-coverage)" % sys.executable)
    if mode == "api":
        return APIMeasure(coverage, files)
    if mode == "collector":
        m = CollectorMeasure(coverage, files)
        if m.collector is not None:
            return m
        return APIMeasure(coverage, files)
    raise ValueError("unknown mode %r (there are: collector, api, trace)" % mode)


def _ids(files, by_file):
    """Function ids and calls (1: lines tell whether, not how often) of
    the lines run, by file."""
    ran = {}
    for path, lines in by_file.items():
        table = files.get(path)
        if table is None:
            table = files.get(os.path.realpath(path))
            if table is None:
                continue
        n = len(table)
        for ln in lines:
            if 0 < ln < n:
                i = table[ln]
                if i >= 0:
                    ran[i] = 1
    return ran


class APIMeasure:
    """coverage.py's public API, a start and stop per input: the data go
    through coverage.py's SQLite store, which costs a third of a
    millisecond and more per input."""

    def __init__(self, coverage, files):
        self.files = files
        self.cov = coverage.Coverage(data_file=None, include=sorted(files), branch=False, config_file=False)

    def begin(self):
        self.cov.erase()
        self.cov.start()

    def end(self):
        self.cov.stop()
        data = self.cov.get_data()
        return _ids(self.files, {f: data.lines(f) or () for f in data.measured_files()})


class CollectorMeasure:
    """One coverage.py Coverage, started once, whose collector's line
    tables are read and emptied after each input: the tracer is
    coverage.py's own (the C one where built), but the data skip the
    SQLite store. The collector is not public API; where it is not as
    expected, APIMeasure is used."""

    def __init__(self, coverage, files):
        self.files = files
        self.cov = coverage.Coverage(data_file=None, include=sorted(files), branch=False, config_file=False)
        self.cov.start()
        c = getattr(self.cov, "_collector", None)
        if c is None or not isinstance(getattr(c, "data", None), dict) or not callable(getattr(c, "_clear_data", None)):
            self.cov.stop()
            c = None
        self.collector = c

    def begin(self):
        self.collector._clear_data()

    def end(self):
        c = self.collector
        ran = _ids(self.files, c.data)
        c._clear_data()
        return ran


class TraceMeasure:
    """sys.settrace on function entry alone, without coverage.py: a code
    object is a recorded function's when its first line (in Python 3.8
    and later the first decorator's) is where the function's def starts.
    It counts calls, where coverage.py's lines tell only whether."""

    def __init__(self, defs):
        self.defs = defs
        self.by_code = {}
        self.calls = {}

    def begin(self):
        self.calls = {}
        sys.settrace(self.trace)
        threading.settrace(self.trace)

    def end(self):
        sys.settrace(None)
        threading.settrace(None)
        return self.calls

    def trace(self, frame, event, arg):
        code = frame.f_code
        i = self.by_code.get(code)
        if i is None:
            defs = self.defs.get(code.co_filename) or self.defs.get(os.path.realpath(code.co_filename)) or {}
            i = self.by_code[code] = -1 if code.co_name.startswith("<") else defs.get(code.co_firstlineno, -1)
        if i >= 0:
            self.calls[i] = self.calls.get(i, 0) + 1
        return None


if __name__ == "__main__":
    main()
