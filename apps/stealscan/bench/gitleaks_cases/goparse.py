"""A small parser for the subset of Go used by gitleaks' table-driven tests:
composite literals, string/number literals, qualified identifiers, calls
(filepath.Join, regexp.MustCompile, errors.New), '+' string concatenation and
top-level const/var string declarations.  Values come back as Python objects:

  keyed composite literal   -> GoLit(type, dict)   (dict keeps source order)
  unkeyed composite literal -> GoLit(type, list)
  string / number / bool    -> str / int / float / bool
  regexp.MustCompile(s)     -> Regex(s)
  errors.New(s)             -> GoError(s)
  filepath.Join(a, b, ...)  -> str (joined and cleaned as Go does)
  other identifiers         -> Ident(name) (after const resolution)
"""
import posixpath
import re


class GoParseError(Exception):
    pass


class Ident(str):
    pass


class Regex(str):
    pass


class GoError(str):
    pass


class GoLit:
    def __init__(self, typ, value):
        self.type = typ
        self.value = value

    def __repr__(self):
        return "GoLit(%r, %r)" % (self.type, self.value)

    def get(self, k, default=None):
        if isinstance(self.value, dict):
            return self.value.get(k, default)
        return default


_TOKEN_RE = re.compile(r"""
    (?P<ws>\s+)
  | (?P<lcomment>//[^\n]*)
  | (?P<bcomment>/\*.*?\*/)
  | (?P<raw>`[^`]*`)
  | (?P<str>"(?:\\.|[^"\\\n])*")
  | (?P<rune>'(?:\\.|[^'\\\n])*')
  | (?P<num>\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>:=|\.\.\.|&&|\|\||==|!=|<=|>=|[{}\[\]().,:;*&+\-=!<>/%|^])
""", re.S | re.X)


def _unquote(s):
    """Interpret a Go double-quoted string literal (without the quotes)."""
    out = []
    i = 0
    simple = {'a': '\a', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r',
              't': '\t', 'v': '\v', '\\': '\\', '"': '"', "'": "'"}
    while i < len(s):
        c = s[i]
        if c != '\\':
            out.append(c)
            i += 1
            continue
        n = s[i + 1]
        if n in simple:
            out.append(simple[n])
            i += 2
        elif n == 'x':
            out.append(chr(int(s[i + 2:i + 4], 16)))
            i += 4
        elif n == 'u':
            out.append(chr(int(s[i + 2:i + 6], 16)))
            i += 6
        elif n == 'U':
            out.append(chr(int(s[i + 2:i + 10], 16)))
            i += 10
        elif n in '01234567':
            out.append(chr(int(s[i + 1:i + 4], 8)))
            i += 4
        else:
            raise GoParseError("bad escape \\%s" % n)
    return ''.join(out)


def tokenize(src):
    toks = []
    pos = 0
    line = 1
    while pos < len(src):
        m = _TOKEN_RE.match(src, pos)
        if not m:
            raise GoParseError("cannot tokenize at line %d: %r" % (line, src[pos:pos + 20]))
        kind = m.lastgroup
        text = m.group(0)
        if kind not in ('ws', 'lcomment', 'bcomment'):
            toks.append((kind, text, line))
        line += text.count('\n')
        pos = m.end()
    return toks


class Parser:
    def __init__(self, toks, consts=None):
        self.toks = toks
        self.i = 0
        self.consts = consts if consts is not None else {}

    # -- helpers
    def peek(self, k=0):
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else ('eof', '', -1)

    def next(self):
        t = self.peek()
        self.i += 1
        return t

    def expect(self, text):
        t = self.next()
        if t[1] != text:
            raise GoParseError("line %d: expected %r, got %r" % (t[2], text, t[1]))
        return t

    def skip_balanced(self, open_, close):
        self.expect(open_)
        depth = 1
        while depth:
            t = self.next()
            if t[0] == 'eof':
                raise GoParseError("unbalanced %s" % open_)
            if t[1] == open_:
                depth += 1
            elif t[1] == close:
                depth -= 1

    # -- types
    def parse_type(self):
        t = self.peek()
        if t[1] == '[':
            self.next()
            if self.peek()[1] == ']':
                self.next()
                return '[]' + self.parse_type()
            if self.peek()[1] == '...':
                self.next()
                self.expect(']')
                return '[...]' + self.parse_type()
            raise GoParseError("array types not supported")
        if t[1] == '*':
            self.next()
            return '*' + self.parse_type()
        if t[1] == 'map':
            self.next()
            self.expect('[')
            k = self.parse_type()
            self.expect(']')
            return 'map[%s]%s' % (k, self.parse_type())
        if t[1] == 'struct':
            self.next()
            self.skip_balanced('{', '}')
            return 'struct{...}'
        if t[0] == 'ident':
            return self.parse_qualified()
        raise GoParseError("line %d: expected a type, got %r" % (t[2], t[1]))

    def parse_qualified(self):
        name = self.next()[1]
        while self.peek()[1] == '.' and self.peek(1)[0] == 'ident':
            self.next()
            name += '.' + self.next()[1]
        return name

    # -- expressions
    def parse_expr(self):
        v = self.parse_unary()
        while self.peek()[1] == '+':
            self.next()
            w = self.parse_unary()
            v = v + w
        return v

    def parse_unary(self):
        t = self.peek()
        if t[1] == '-':
            self.next()
            return -self.parse_unary()
        if t[1] == '&':
            self.next()
            return self.parse_unary()
        return self.parse_primary()

    def parse_primary(self):
        t = self.peek()
        kind, text, line = t
        if kind == 'raw':
            self.next()
            return text[1:-1].replace('\r', '')
        if kind == 'str':
            self.next()
            return _unquote(text[1:-1])
        if kind == 'num':
            self.next()
            return float(text) if ('.' in text or 'e' in text.lower()) else int(text)
        if text == '{':
            return self.parse_body(None)
        if text in ('[', 'map', 'struct', '*'):
            typ = self.parse_type()
            return self.parse_body(typ)
        if kind == 'ident':
            name = self.parse_qualified()
            nt = self.peek()[1]
            if nt == '(':
                return self.parse_call(name)
            if nt == '{':
                return self.parse_body(name)
            if name == 'true':
                return True
            if name == 'false':
                return False
            if name == 'nil':
                return None
            if name in self.consts:
                return self.consts[name]
            return Ident(name)
        if text == '(':
            self.next()
            v = self.parse_expr()
            self.expect(')')
            return v
        raise GoParseError("line %d: unexpected %r" % (line, text))

    def parse_call(self, name):
        self.expect('(')
        args = []
        while self.peek()[1] != ')':
            args.append(self.parse_expr())
            if self.peek()[1] == ',':
                self.next()
        self.expect(')')
        if name == 'filepath.Join':
            parts = [a for a in args if a != '']
            if not all(isinstance(a, str) for a in parts):
                raise GoParseError("filepath.Join of non-strings: %r" % (args,))
            return posixpath.normpath(posixpath.join(*parts)) if parts else ''
        if name == 'regexp.MustCompile':
            return Regex(args[0])
        if name == 'errors.New':
            return GoError(args[0])
        raise GoParseError("unsupported call %s(...)" % name)

    def parse_body(self, typ):
        self.expect('{')
        keyed = None
        items_d = {}
        items_l = []
        while self.peek()[1] != '}':
            # element: [key ':'] value
            start = self.i
            is_keyed = False
            if self.peek()[0] in ('ident', 'str') and self.peek(1)[1] == ':':
                is_keyed = True
            if is_keyed:
                kt = self.next()
                key = _unquote(kt[1][1:-1]) if kt[0] == 'str' else kt[1]
                self.expect(':')
                val = self.parse_expr()
                items_d[key] = val
                keyed = True
            else:
                items_l.append(self.parse_expr())
                keyed = False if keyed is None else keyed
            if self.peek()[1] == ',':
                self.next()
            elif self.peek()[1] != '}':
                raise GoParseError("line %d: expected ',' or '}' got %r" % (self.peek()[2], self.peek()[1]))
        self.expect('}')
        if keyed is None:  # empty literal
            return GoLit(typ, [] if (typ or '').startswith('[') else {})
        return GoLit(typ, items_d if keyed else items_l)


def parse_top_consts(toks):
    """const/var NAME = <string expr> at top level (brace depth 0)."""
    consts = {}
    depth = 0
    i = 0
    while i < len(toks):
        kind, text, _ = toks[i]
        if text == '{':
            depth += 1
        elif text == '}':
            depth -= 1
        if depth == 0 and text in ('const', 'var') and i + 2 < len(toks) \
                and toks[i + 1][0] == 'ident' and toks[i + 2][1] == '=':
            p = Parser(toks, consts)
            p.i = i + 3
            try:
                v = p.parse_expr()
                consts[toks[i + 1][1]] = v
                i = p.i
                continue
            except GoParseError:
                pass
        i += 1
    return consts


def find_func(toks, name):
    for i, t in enumerate(toks):
        if t[1] == 'func' and i + 1 < len(toks) and toks[i + 1][1] == name:
            return i
    raise GoParseError("func %s not found" % name)


def parse_table(src, func_name, var_names=('tests', 'cases')):
    """Return the parsed literal assigned to tests/cases in func_name."""
    toks = tokenize(src)
    consts = parse_top_consts(toks)
    i = find_func(toks, func_name)
    while i < len(toks):
        if toks[i][1] in var_names and toks[i + 1][1] == ':=':
            p = Parser(toks, consts)
            p.i = i + 2
            typ = p.parse_type()
            return p.parse_body(typ), consts
        if toks[i][1] == 'func' and toks[i + 1][1] != func_name and i > 0:
            break
        i += 1
    raise GoParseError("no tests/cases table in %s" % func_name)


def parse_var(src, name):
    toks = tokenize(src)
    consts = parse_top_consts(toks)
    for i, t in enumerate(toks):
        if t[1] == 'var' and toks[i + 1][1] == name and toks[i + 2][1] == '=':
            p = Parser(toks, consts)
            p.i = i + 3
            return p.parse_expr()
    raise GoParseError("var %s not found" % name)
