"""Prints a thunky module without the module attributes that say how the
executable was packed (thunky.container, thunky.executable_options,
thunky.ifrt_metadata, thunky.wrapper) and the resources only they named, so
that modules imported from different layerings of one executable can be
compared with diff."""
import re
import sys

NAMES = ("thunky.container", "thunky.executable_options", "thunky.ifrt_metadata",
         "thunky.wrapper")


def value_end(text, i):
    """Index one past the attribute value starting at text[i]."""
    depth, quoted = 0, False
    while i < len(text):
        c = text[i]
        if quoted:
            if c == "\\":
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
        elif c in "{[<(":
            depth += 1
        elif c in "}]>)":
            if depth == 0:
                return i
            depth -= 1
        elif c == "," and depth == 0:
            return i
        i += 1
    return i


def strip(text):
    for name in NAMES:
        match = re.search(r"(, )?%s = " % re.escape(name), text)
        if not match:
            continue
        end = value_end(text, match.end())
        if match.group(1) is None and text[end:end + 2] == ", ":
            end += 2
        text = text[:match.start()] + text[end:]
    text = text.replace("module attributes {} {", "module {")
    # The trailer's lines, less their commas: which one is last depends on
    # what was dropped.
    named = set(re.findall(r"dense_resource<([^>]*)>", text))
    lines = []
    for line in text.splitlines():
        m = re.match(r"      ([^:]+): \"0x", line)
        if m and m.group(1) in named:
            line = line.rstrip(",")
        if not m or m.group(1) in named:
            lines.append(line + "\n")
    return "".join(lines)


sys.stdout.write(strip(open(sys.argv[1]).read()))
