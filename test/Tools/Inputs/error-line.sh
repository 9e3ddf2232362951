#!/usr/bin/env bash
# error-line.sh STATUS COMMAND...: runs COMMAND and fails unless it exits
# with STATUS, prints nothing to stdout and exactly one line to stderr;
# then prints that line, for FileCheck.
want=$1
shift
errfile=$(mktemp)
out=$("$@" 2>"$errfile")
got=$?
err=$(cat "$errfile")
rm -f "$errfile"
lines=$(printf '%s\n' "$err" | wc -l)
printf '%s\n' "$err"
if [ "$got" != "$want" ]; then echo "error-line.sh: exit status $got, not $want" >&2; exit 1; fi
if [ -n "$out" ]; then echo "error-line.sh: wrote to stdout: $out" >&2; exit 1; fi
if [ -z "$err" ] || [ "$lines" != 1 ]; then echo "error-line.sh: $lines lines on stderr, not 1" >&2; exit 1; fi
