# The documentation's perf example: a real `perf record` of testdata/perf/loop.pie (made by 60-perf.sh),
# committed so that scripts/make-doc-examples gives the same output on every machine.  Needs perf record
# (perf_event_paranoid <= 2 or root).  Samples vary from one recording to the next: rerun
# scripts/make-doc-examples after remaking this file.
mkdir -p "$TD/docs"
perf record -q -e cpu-clock -F 4000 -o "$TD/docs/loop.perf.data" -- "$TD/perf/loop.pie" 8000 >/dev/null
chmod 644 "$TD/docs/loop.perf.data"
