"""Checks that the docs keep up with the dialect: every op ThunkyOps.td
defines has a row in docs/dialect.md, and the README's count of ops is
the number defined. Prints the count; exits 1 naming what is missing."""
import re
import sys

src = sys.argv[1]
td = open(f"{src}/dialect/ThunkyOps.td").read()
ops = re.findall(r'^def Thunky_\w+Op\s*:\s*Thunky_\w*Op<"(\w+)"', td, re.M)
docs = open(f"{src}/docs/dialect.md").read()
rows = set()
for line in docs.splitlines():
    if line.startswith("| `"):
        rows.update(re.findall(r"`(\w+)`", line.split("|")[1]))
missing = [op for op in ops if op not in rows]
readme = open(f"{src}/README.md").read()
counted = re.search(r"`!thunky\.token`,\s+(\d+)\s+ops", readme)
problems = []
if missing:
    problems.append("docs/dialect.md has no row for: " + ", ".join(missing))
if not counted:
    problems.append("README.md does not count the ops")
elif int(counted.group(1)) != len(ops):
    problems.append(f"README.md counts {counted.group(1)} ops; the dialect defines {len(ops)}")
for p in problems:
    print(p)
print(f"{len(ops)} ops, each documented" if not problems else "")
sys.exit(1 if problems else 0)
