#!/usr/bin/env bash
# check_equivalence.sh [-m MESSAGE] [-j JOBS] [-l PLUGIN]... [-p PASS]...
#                      INPUT|DIR... : thunky proves passes, JOBS inputs at
# a time (1 by default).
#
# Inputs: executables in any layering thunky reads (a .exe, .pb, .riegeli,
# cache entry, pickle, ...), thunky modules (.mlir), and .textproto or
# .pbtxt text of MESSAGE (by default xla.gpu.GpuExecutableProto). A DIR
# gives every file in it that is one of these. Passes: thunky's rewrites,
# each alone, and thunky-optimize; with -p, the passes (or pipelines, as
# thunky-opt's --pass-pipeline takes them inside builtin.module) given
# instead, from the pass plugins that -l loads.
#
# For each input it imports it, checks the module with thunky-check-races
# and the runtime's --check-async, then runs each pass, exports the result
# and compares it with the original with thunky-run --kernels=fingerprint
# --compare, and again with --backend symbolic: the two must agree. Rank
# layouts: the one the executable records (an 8-GPU SPMD executable: 8
# ranks of 8 partitions), then 2 and 4 replicas; an input that cannot run
# on those runs as partitions, or on 1 or 8 ranks. One
# the fingerprint cannot run (a loop it cannot follow, bytes that do not fit
# in memory) is proved symbolically alone, and its line says why; one that
# cannot run at all, or has no outputs to compare, is listed with the
# reason. A program whose outputs change with what scratch
# holds at the start (it reads scratch bytes nothing wrote, which XLA's
# programs never do and whose result XLA leaves undefined) does not check
# the passes that move scratch, and so change which undefined bytes it
# reads (pack-scratch, and thunky-optimize, which runs it); the line says
# so. Prints a line per input and the counts;
# exits 1 if any comparison or race check fails, 2 on a bad command line.
set -uo pipefail
scripts="$(cd "$(dirname "$0")" && pwd)"
top="$(mktemp -d)"
trap 'rm -rf "$top"' EXIT
passes=(thunky-flatten-sequential thunky-fold-slices thunky-elide-copies thunky-pack-scratch
        thunky-remove-redundant-async thunky-expand-async-scope thunky-optimize)
message=xla.gpu.GpuExecutableProto parallel=1
inputs=() messages=() plugins=() given=()
usage() { echo "check_equivalence.sh: $1 (usage: [-m MESSAGE] [-j JOBS] [-l PLUGIN]... [-p PASS]... INPUT|DIR...)" >&2; exit 2; }
# Whether a file of a DIR is an input: text by its name, else bytes that
# thunky-container reads as an executable.
isInput() {
  case "$1" in
    *.textproto|*.pbtxt|*.mlir) return 0 ;;
  esac
  thunky-container info "$1" > /dev/null 2>&1
}
while [ $# -gt 0 ]; do
  case "$1" in
    -m|-j|-l|-p) [ $# -ge 2 ] || usage "$1 needs a value" ;;&
    -m) message="$2"; shift 2; continue ;;
    -j) parallel="$2"; shift 2; continue ;;
    -l) [ -f "$2" ] || usage "-l $2: no such pass plugin"
        plugins+=("--load-pass-plugin=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")")
        shift 2; continue ;;
    -p) given+=("$2"); shift 2; continue ;;
    -*) usage "unknown option $1" ;;
  esac
  if [ -d "$1" ]; then
    for f in "$1"/*; do
      [ -f "$f" ] && isInput "$f" && inputs+=("$f") && messages+=("$message")
    done
  elif [ -e "$1" ]; then
    inputs+=("$1"); messages+=("$message")
  else
    usage "$1: no such file or folder"
  fi
  shift
done
[ ${#inputs[@]} -gt 0 ] || usage "no inputs"
[ ${#given[@]} -eq 0 ] || passes=("${given[@]}")

run() { thunky-run --kernels=fingerprint --seed 1 "$@"; }
# layoutOptions LAYOUT: thunky-run's options for it ("recorded": none).
layoutOptions() { [ "$1" = recorded ] || echo "--ranks $1"; }
# layoutName LAYOUT: as the lines say it.
layoutName() { if [ "$1" = recorded ]; then echo "$recordedRanks (recorded)"; else echo "$1"; fi; }
sym() { thunky-run --backend symbolic "$@"; }
# compare A B LABEL OPTIONS...: B against A on both checks (only the
# symbolic one when $symbolicOnly); a difference, or the two disagreeing,
# is a failure.
compare() {
  local a="$1" b="$2" label="$3"
  shift 3
  comparisons=$((comparisons + 1))
  if [ "$symbolicOnly" = 0 ] && ! run "$@" "$a" --compare "$b" > "$tmp/out" 2>&1; then
    echo "$name: FAIL: $label: $(head -2 "$tmp/out" | tr '\n' ' ')"; bad=1; return
  fi
  symbolic=$((symbolic + 1))
  if ! sym "$@" "$a" --compare "$b" > "$tmp/out" 2>&1; then
    echo "$name: FAIL: $label, symbolically$([ "$symbolicOnly" = 0 ] &&
      echo ", where the fingerprint found them the same"): $(head -2 "$tmp/out" | tr '\n' ' ')"
    bad=1
  fi
}
# sendsOnly run|sym: whether the input, which has no outputs, sends to other
# ranks, which a comparison compares as it does outputs.
sendsOnly() {
  # shellcheck disable=SC2046
  "$1" $(layoutOptions "${ranks[0]}") "$tmp/in.pb" --compare "$tmp/in.pb" > /dev/null 2>&1
}
# One input, in its own folder under $top; prints its line, and its counts
# to $top/I.counts.
check() {
  local i="$1"
  tmp="$top/$i"
  mkdir -p "$tmp"
  inputsOk=0 skipped=0 noOutputs=0 comparisons=0 raceChecks=0 failures=0 symbolic=0 symbolicOnly=0
  checkOne "$i"
  echo "$inputsOk $skipped $noOutputs $comparisons $raceChecks $failures $symbolic $symbolicOnly" \
    > "$top/$i.counts"
  rm -rf "$tmp"
}

checkOne() {
  local i="$1"
  input="${inputs[$i]}" name="$(basename "${inputs[$i]}")"
  case "$input" in
    *.textproto|*.pbtxt) "$scripts/encode.sh" "${messages[$i]}" < "$input" > "$tmp/in.pb" ;;
    *.mlir) if ! thunky-translate --export-thunky "$input" -o "$tmp/in.pb" 2> "$tmp/err"; then
              echo "$name: FAIL: does not export: $(head -1 "$tmp/err")"
              failures=$((failures + 1)); return
            fi ;;
    *) cp "$input" "$tmp/in.pb" ;;
  esac
  if ! thunky-translate --import-thunky "$tmp/in.pb" -o "$tmp/in.mlir" 2> "$tmp/err"; then
    echo "$name: FAIL: does not import: $(head -1 "$tmp/err")"; failures=$((failures + 1)); return
  fi
  # Rank layouts, as thunky-run options: the one the executable records
  # (no option), when it records one; 2 and 4 replicas; else as many
  # partitions (a cross-partition collective); else 1 or 8 ranks, or 8
  # partitions.
  ranks=() layouts=("2" "4" "2 --partitions 2" "4 --partitions 4" "1" "8" "8 --partitions 8")
  # thunky-run takes the recorded layout when given none: it records one
  # when that runs on more than one rank (symbolically where the
  # fingerprint cannot run it: too big, say).
  # The fingerprint run that finds it counts as that layout's trial.
  recordedRuns=0
  if run "$tmp/in.pb" --print > "$tmp/recorded" 2> /dev/null; then
    recordedRuns=1
  else
    sym "$tmp/in.pb" --print > "$tmp/recorded" 2> /dev/null
  fi
  recordedRanks="$(grep -o '^rank [0-9]*' "$tmp/recorded" | sort -u | wc -l)"
  [ "$recordedRanks" -gt 1 ] && layouts=(recorded "${layouts[@]}")
  for layout in "${layouts[@]}"; do
    case "$layout" in "2 --partitions 2"|"1") [ ${#ranks[@]} -eq 0 ] || break ;; esac
    # --ranks N alone, N the recorded count, is the recorded layout again.
    [ "${layouts[0]}" = recorded ] && [ "$layout" = "$recordedRanks" ] && continue
    if [ "$layout" = recorded ] && [ "$recordedRuns" = 1 ]; then
      ranks+=(recorded)
      continue
    fi
    # shellcheck disable=SC2046
    run $(layoutOptions "$layout") "$tmp/in.pb" > /dev/null 2> "$tmp/why" && ranks+=("$layout")
    [ "$layout" = 2 ] && cp "$tmp/why" "$tmp/why.2"
  done
  # What the fingerprint cannot run, the symbolic check may: the same
  # layouts, its contents printed instead of outputs written.
  symbolicWhy=""
  if [ ${#ranks[@]} -eq 0 ]; then
    for layout in "${layouts[@]}"; do
      case "$layout" in "2 --partitions 2"|"1") [ ${#ranks[@]} -eq 0 ] || break ;; esac
      # shellcheck disable=SC2046
      sym $(layoutOptions "$layout") "$tmp/in.pb" --print > /dev/null 2>&1 && ranks+=("$layout")
    done
    if [ ${#ranks[@]} -eq 0 ]; then
      echo "$name: skipped: does not run on the host: $(sed 's/^thunky-run: //' "$tmp/why.2" | head -1)"
      skipped=$((skipped + 1)); return
    fi
    symbolicOnly=1 symbolicWhy="$(sed 's/^thunky-run: //' "$tmp/why.2" | head -1)"
  fi
  readsUnwritten=0
  if [ "$symbolicOnly" = 1 ]; then
    # shellcheck disable=SC2046
    sym $(layoutOptions "${ranks[0]}") "$tmp/in.pb" --print > "$tmp/zeros" 2>&1
    if ! grep -q '^\(rank 0 \)\?out0' "$tmp/zeros" && ! sendsOnly sym; then
      echo "$name: skipped: no outputs to compare (output_info_map is empty) and sends nothing"
      noOutputs=$((noOutputs + 1)); return
    fi
    # shellcheck disable=SC2046
    sym $(layoutOptions "${ranks[0]}") "$tmp/in.pb" --scratch-byte 165 --print > "$tmp/filled" 2>&1
    cmp -s "$tmp/zeros" "$tmp/filled" || readsUnwritten=1
  else
    mkdir -p "$tmp/zeros" "$tmp/filled"
    # shellcheck disable=SC2046
    run $(layoutOptions "${ranks[0]}") "$tmp/in.pb" -o "$tmp/zeros" > /dev/null 2>&1
    if [ -z "$(ls -A "$tmp/zeros")" ] && ! sendsOnly run; then
      echo "$name: skipped: no outputs to compare (output_info_map is empty) and sends nothing"
      noOutputs=$((noOutputs + 1)); rm -rf "$tmp/zeros" "$tmp/filled"; return
    fi
    # shellcheck disable=SC2046
    run $(layoutOptions "${ranks[0]}") "$tmp/in.pb" --scratch-byte 165 -o "$tmp/filled" > /dev/null 2>&1
    diff -rq "$tmp/zeros" "$tmp/filled" > /dev/null || readsUnwritten=1
  fi
  rm -rf "$tmp/zeros" "$tmp/filled"
  bad=0 checked=0
  raceChecks=$((raceChecks + 1))
  if ! thunky-opt --thunky-check-races "$tmp/in.mlir" -o /dev/null 2> "$tmp/err"; then
    echo "$name: FAIL: thunky-check-races: $(head -1 "$tmp/err")"; bad=1
  fi
  for r in "${ranks[@]}"; do
    raceChecks=$((raceChecks + 1))
    # shellcheck disable=SC2046
    if [ "$symbolicOnly" = 0 ] && ! run $(layoutOptions "$r") "$tmp/in.pb" --check-async > "$tmp/out" 2>&1; then
      echo "$name: FAIL: --check-async on $(layoutName "$r") ranks: $(head -2 "$tmp/out" | tr '\n' ' ')"; bad=1
    fi
    symbolic=$((symbolic + 1))
    # shellcheck disable=SC2046
    if ! sym $(layoutOptions "$r") "$tmp/in.pb" --check-async > "$tmp/out" 2>&1; then
      echo "$name: FAIL: --check-async on $(layoutName "$r") ranks, symbolically: $(head -2 "$tmp/out" | tr '\n' ' ')"
      bad=1
    fi
  done
  for pass in "${passes[@]}"; do
    case "$pass" in
      thunky-pack-scratch|thunky-optimize) [ $readsUnwritten -eq 0 ] || continue ;;
    esac
    checked=$((checked + 1))
    # The race check runs right after the pass, in the same pipeline.
    raceChecks=$((raceChecks + 1))
    if ! thunky-opt "${plugins[@]}" --pass-pipeline="builtin.module($pass,thunky-check-races)" \
           "$tmp/in.mlir" -o "$tmp/p.mlir" 2> "$tmp/err" ||
       ! thunky-translate --export-thunky "$tmp/p.mlir" -o "$tmp/p.pb" 2>> "$tmp/err"; then
      echo "$name: FAIL: $pass: $(head -1 "$tmp/err")"; bad=1; continue
    fi
    for r in "${ranks[@]}"; do
      # shellcheck disable=SC2046
      compare "$tmp/in.pb" "$tmp/p.pb" "$pass on $(layoutName "$r") ranks" $(layoutOptions "$r")
    done
  done
  if [ $bad -eq 0 ]; then
    inputsOk=$((inputsOk + 1))
    shown="$(for r in "${ranks[@]}"; do printf '%s, ' "$(layoutName "$r")"; done)"
    unchecked=""
    [ $readsUnwritten -eq 0 ] ||
      unchecked="; pack-scratch and thunky-optimize not compared: it reads scratch bytes nothing wrote"
    [ "$symbolicOnly" = 0 ] || unchecked="$unchecked; symbolically only: $symbolicWhy"
    echo "$name: equal after $checked rewrites on ${shown%, } ranks, race-free$unchecked"
  else
    failures=$((failures + 1))
  fi
}

for i in "${!inputs[@]}"; do
  check "$i" > "$top/$i.out" &
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n; done
done
wait
inputsOk=0 skipped=0 noOutputs=0 comparisons=0 raceChecks=0 failures=0 symbolic=0 onlySymbolic=0
for i in "${!inputs[@]}"; do
  cat "$top/$i.out"
  read -r a b c d e f g h < "$top/$i.counts"
  inputsOk=$((inputsOk + a)) skipped=$((skipped + b)) noOutputs=$((noOutputs + c))
  comparisons=$((comparisons + d)) raceChecks=$((raceChecks + e)) failures=$((failures + f))
  symbolic=$((symbolic + g)) onlySymbolic=$((onlySymbolic + h))
done
echo "equivalence: ${#inputs[@]} inputs: $inputsOk proved ($onlySymbolic symbolically only)," \
     "$skipped cannot run on the host, $noOutputs have no outputs, $failures failed;" \
     "$comparisons comparisons and $raceChecks race checks; $symbolic symbolic checks, each" \
     "agreeing with the fingerprint where it ran"
[ $failures -eq 0 ]
