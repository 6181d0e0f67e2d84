#!/usr/bin/env python3
"""Keeps the C++ programs in README.md and docs/CPP.md equal to examples/*.cpp.

A fenced block that follows a line naming `examples/<name>.cpp` in backticks
holds that file verbatim. `--check` fails when one differs (make test-install);
without it the blocks are rewritten from the files.
"""
import re
import sys

DOCS = ["README.md", "docs/CPP.md"]


def sync(text):
    out, pos, changed = [], 0, []
    for m in re.finditer(r"`(examples/\w+\.cpp)`[^\n]*\n(?:(?!```)[^\n]*\n)*?```cpp\n(.*?)```\n", text, re.S):
        path, body = m.group(1), m.group(2)
        want = open(path).read()
        if body != want:
            changed.append(path)
        out.append(text[pos:m.start(2)])
        out.append(want)
        pos = m.end(2)
    out.append(text[pos:])
    return "".join(out), changed


def main():
    check = "--check" in sys.argv
    bad = []
    for doc in DOCS:
        text = open(doc).read()
        new, changed = sync(text)
        if check:
            bad += [f"{doc}: the block for {p} differs from the file" for p in changed]
        elif new != text:
            open(doc, "w").write(new)
    for line in bad:
        print(line, file=sys.stderr)
    sys.exit(1 if bad else 0)


main()
