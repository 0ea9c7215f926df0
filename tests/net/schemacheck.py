#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Validate rant's JSON documents against schema/rant.schema.json.

usage: schemacheck.py [--schema FILE] [--all] FILE...

Each FILE that is rant's output (a JSON object with "rant_version") is
validated with Debian's python3-jsonschema (draft 2020-12); other files
are passed over (named with -v), unless --all makes each one that is not
rant's JSON an error. A file that names "rant_version" but is not JSON is
an error too. Each error is one line: the file, the path in the document
(JSON Pointer, as jq would reach it), and the validator's message.
Exit status: 0 every rant document valid, 1 an error, 2 usage.
"""

import argparse
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("schemacheck: python3-jsonschema is missing (sudo make deps)")

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "..", "..", "schema", "rant.schema.json")
MAX_ERRORS = 10


def pointer(path):
    """The JSON Pointer of a deque of keys and indexes ("" at the top)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1")
                   for p in path) or "/"


def validator(path):
    with open(path) as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def errors_of(v, doc):
    """The errors, deepest first within each top-level branch; for a
    failed oneOf/anyOf/if, the deepest of its branches' errors (what a
    person fixes), as jsonschema.exceptions.best_match picks."""
    out = []
    for e in sorted(v.iter_errors(doc), key=lambda e: list(map(str, e.path))):
        best = jsonschema.exceptions.best_match([e])
        while best.context:
            best = jsonschema.exceptions.best_match(best.context)
        out.append(best)
    return out


def check(v, path, need_rant):
    """Error lines for one file ([] when valid or not rant's)."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        return [f"{path}: cannot read ({e.strerror})"]
    try:
        doc = json.loads(raw)
    except ValueError as e:
        if need_rant or b'"rant_version"' in raw:
            return [f"{path}: not JSON ({e})"]
        return None
    if not isinstance(doc, dict) or "rant_version" not in doc:
        return [f"{path}: not rant's JSON (no rant_version)"] if need_rant else None
    lines = []
    for e in errors_of(v, doc)[:MAX_ERRORS]:
        lines.append(f"{path}: at {pointer(e.absolute_path)}: {e.message} "
                     f"(schema: {pointer(e.absolute_schema_path)})")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--schema", default=SCHEMA, help="the schema (default: %(default)s)")
    ap.add_argument("--all", action="store_true",
                    help="every FILE must be rant's JSON")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="name each file checked or passed over")
    ap.add_argument("files", nargs="+", metavar="FILE")
    a = ap.parse_args()
    try:
        v = validator(a.schema)
    except (OSError, ValueError, jsonschema.exceptions.SchemaError) as e:
        print(f"schemacheck: {a.schema}: not a usable schema: {e}", file=sys.stderr)
        return 2
    bad = 0
    for path in a.files:
        lines = check(v, path, a.all)
        if lines:
            bad += 1
            for ln in lines:
                print(ln, file=sys.stderr)
        elif a.verbose:
            print(f"{path}: {'valid' if lines == [] else 'not rant JSON, passed over'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
