# SPDX-License-Identifier: GPL-2.0-or-later
"""A C source read as far as the floor-plan checks need, without a compiler
or ctags: the text with its comments, string and character constants and
preprocessor lines blanked (line numbers kept), and its top-level braces:
function definitions (the name before the head's first parenthesis, static
or not, the lines from the head's first to the closing brace) and the
other brace blocks at file level (struct bodies, tables of initializers).

It assumes the tree's style (a definition's braces balance, no macro opens
or closes a brace), which the compiler and check-columns.sh hold anyway.
"""
import re

_TOKEN = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
_PREPRO = re.compile(r'^[ \t]*#(?:[^\n]*\\\n)*[^\n]*', re.M)
_CALL = re.compile(r'(?<![\w.>])([A-Za-z_]\w*)\s*\(')
_NOT_NAME = {'if', 'while', 'for', 'switch', 'return', 'sizeof', '__attribute__',
             '_Alignof', '_Static_assert', 'typeof', '__typeof__', '_Generic'}
_IDENT = re.compile(r'[A-Za-z_]\w*')
# An identifier that is no reference to a function: a member, a tag.
_NOT_REF = re.compile(r'(?:\.|->|\bstruct|\bunion|\benum)\s*$')
# A macro that stands for "static ..." (#define RX_TX_STEP static inline ...).
_STATIC_MACRO = re.compile(r'^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+static\b', re.M)


def static_words(text):
    """The words that make a definition static in text (unstripped):
    "static" and the macros the file defines as "static ..."."""
    return {'static'} | set(_STATIC_MACRO.findall(text))


def _blank(m):
    t = m.group(0)
    if t[0] == '/':
        return '\n' * t.count('\n') or ' '
    return t[0] * 2


def strip(text):
    """text with comments, strings, character constants and preprocessor
    lines blanked; every newline kept, so offsets map to the same lines."""
    text = _TOKEN.sub(_blank, text)
    return _PREPRO.sub(lambda m: '\n' * m.group(0).count('\n'), text)


class Block:
    """A brace block at file level: a function (name set) or another."""

    def __init__(self, name, static, first, last, body):
        self.name = name        # the function's, or None
        self.static = static
        self.first = first      # line of the head's first token (1-based)
        self.last = last        # line of the closing brace
        self.body = body        # from '{' to '}', stripped

    def lines(self):
        return self.last - self.first + 1

    def references(self):
        """Identifiers of the body that may name a function (called or
        taken as a pointer): not members, not struct, union or enum tags."""
        for m in _IDENT.finditer(self.body):
            if not _NOT_REF.search(self.body, max(0, m.start() - 8), m.start()):
                yield m.group(0)


def _def_name(head):
    if re.search(r'(?<![=!<>])=(?!=)', head):
        return None             # an initializer: "... tab[] = {"
    for m in _CALL.finditer(head):
        if m.group(1) not in _NOT_NAME:
            return m.group(1)
    return None


def blocks(text, static=frozenset({'static'})):
    """The brace blocks at file level of stripped text, in order; static:
    the words that make a definition static (static_words())."""
    out, head, i, n = [], 0, 0, len(text)
    while i < n:
        c = text[i]
        if c == ';':
            head = i + 1
        elif c == '{':
            start, depth = i, 0
            while i < n:
                depth += (text[i] == '{') - (text[i] == '}')
                if depth == 0:
                    break
                i += 1
            h = text[head:start]
            name = _def_name(h)
            lead = len(h) - len(h.lstrip())
            first = text.count('\n', 0, head + lead) + 1
            last = text.count('\n', 0, i) + 1
            out.append(Block(name, bool(static & set(_IDENT.findall(h))), first, last,
                             text[start:i + 1]))
            if name:
                head = i + 1    # a struct's or a table's head goes on to its ';'
        i += 1
    return out
