"""Entry functions that use Python standard-library parsers as a program
would, one per subject, each taking the input as bytes.

Each entry decodes the input as UTF-8 (with surrogateescape, so that every
byte string reaches the parser), parses it, and then walks or re-encodes
what it got, so that the library's code for the values it produced runs
too. Malformed input raises the parser's own exception, which the
subject's Reject list names; anything else escaping is a crash.
"""

import configparser
import html.parser
import json
import json.decoder
import json.scanner
import tomllib
import urllib.parse


def _text(data):
    return data.decode("utf-8", "surrogateescape")


class _PyDecoder(json.decoder.JSONDecoder):
    """A JSONDecoder on the pure-Python scanner, whose code coverage.py
    sees, rather than the C accelerator, which it does not."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.parse_string = json.decoder.py_scanstring
        self.scan_once = json.scanner.py_make_scanner(self)


def json_run(data):
    text = _text(data)
    value = _PyDecoder().decode(text)
    pairs = _PyDecoder(object_pairs_hook=list, parse_float=str, parse_int=str).decode(text)
    json.dumps(value)
    json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)
    json.dumps(pairs, separators=(",", ":"))
    # The pure-Python encoder, as the C one is invisible too.
    enc = json.encoder.JSONEncoder(indent=1, check_circular=True, allow_nan=True)
    "".join(enc.iterencode(value, _one_shot=False))


def toml_run(data):
    doc = tomllib.loads(_text(data))
    _walk(doc)
    tomllib.loads(_text(data), parse_float=str)


def _walk(value):
    n = 0
    stack = [value]
    while stack:
        v = stack.pop()
        n += 1
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        else:
            str(v)
    return n


def url_run(data):
    text = _text(data)
    parse = urllib.parse
    parts = parse.urlsplit(text)
    parse.urlparse(text)
    parse.urlunsplit(parts)
    parts.geturl()
    # Properties that parse the authority: hostname and port raise
    # ValueError for a malformed host or port.
    parts.username, parts.password, parts.hostname, parts.port
    parse.parse_qsl(parts.query, keep_blank_values=True)
    parse.parse_qs(parts.query)
    parse.unquote(parts.path)
    parse.unquote_plus(parts.query)
    parse.urljoin("http://a/b/c/d;p?q", text)
    parse.urldefrag(text)
    parse.quote(parts.path, safe="/")
    parse.quote_plus(text)
    parse.urlencode(parse.parse_qsl(parts.query), doseq=True)


def ini_run(data):
    for interpolation in (configparser.BasicInterpolation(), configparser.ExtendedInterpolation()):
        cp = configparser.ConfigParser(interpolation=interpolation)
        cp.read_string(_text(data))
        for section in cp.sections():
            for option in cp.options(section):
                cp.get(section, option, fallback=None)
                cp.get(section, option, raw=True)
                cp.getint(section, option, fallback=0) if _isint(cp, section, option) else None
                cp.getfloat(section, option, fallback=0.0) if _isfloat(cp, section, option) else None
                cp.getboolean(section, option, fallback=False) if _isbool(cp, section, option) else None
            dict(cp.items(section))
            cp.has_option(section, "missing")
    cp = configparser.RawConfigParser(strict=False, allow_no_value=True)
    cp.read_string(_text(data))
    for section in cp.sections():
        cp.items(section)


def _raw(cp, section, option):
    return cp.get(section, option, raw=True, fallback="") or ""


def _isint(cp, section, option):
    try:
        int(_raw(cp, section, option))
        return True
    except ValueError:
        return False


def _isfloat(cp, section, option):
    try:
        float(_raw(cp, section, option))
        return True
    except ValueError:
        return False


def _isbool(cp, section, option):
    return _raw(cp, section, option).lower() in configparser.ConfigParser.BOOLEAN_STATES


class _Events(html.parser.HTMLParser):
    """Collects every event the parser reports."""

    def __init__(self, convert_charrefs):
        super().__init__(convert_charrefs=convert_charrefs)
        self.events = []

    def handle_starttag(self, tag, attrs):
        self.events.append(("start", tag, attrs))

    def handle_startendtag(self, tag, attrs):
        self.events.append(("startend", tag, attrs))

    def handle_endtag(self, tag):
        self.events.append(("end", tag))

    def handle_data(self, data):
        self.events.append(("data", data))

    def handle_entityref(self, name):
        self.events.append(("entity", name))

    def handle_charref(self, name):
        self.events.append(("char", name))

    def handle_comment(self, data):
        self.events.append(("comment", data))

    def handle_decl(self, decl):
        self.events.append(("decl", decl))

    def handle_pi(self, data):
        self.events.append(("pi", data))

    def unknown_decl(self, data):
        self.events.append(("unknown", data))


def html_run(data):
    text = _text(data)
    for convert in (True, False):
        p = _Events(convert)
        p.feed(text)
        p.close()
    # Fed in pieces, as from a network stream.
    p = _Events(True)
    for i in range(0, len(text), 7):
        p.feed(text[i:i + 7])
    p.close()
    p.get_starttag_text()
