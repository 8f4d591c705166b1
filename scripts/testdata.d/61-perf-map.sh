# perf-map area: two builds of one program (block hashes), real recordings (plain and zstd-compressed) and the
# outputs of perf itself and of perf2bolt on them, the oracles of tests/test_perf_map_real.py.
out="$TD/perf-map"; src="$SRC/perf-map"
mkdir -p "$out"
CC=${CC22:-clang-22}
# Build N and build N+1 (a source change) with version-5 basic-block maps carrying block hashes (BBHash).
flags="-O2 -fPIE -pie -fbasic-block-address-map -mllvm -emit-bb-hash -Wl,--build-id=sha1"
$CC $flags "$src/loop.c" -o "$out/loop.pie"
$CC $flags "$src/loop-next.c" -o "$out/loop-next.pie"
# Recordings of build N: cpu-clock (what works on a machine without hardware counters), a fixed period.
# run-a and run-b: two runs (merge tests); run-a-z: a third run recorded with perf record -z (zstd).
if perf record -q -e cpu-clock -o /dev/null -- true 2>/dev/null; then
  for run in a b; do
    perf record -q -e cpu-clock -c 50000 -o "$out/run-$run.data" -- "$out/loop.pie" 8000 >/dev/null
  done
  # perf record -z writes no build-id table (perf 6.1): --buildid-mmap puts the build-ids in the MMAP2 records.
  perf record -q -z --buildid-mmap -e cpu-clock -c 50000 -o "$out/run-a-z.data" -- "$out/loop.pie" 8000 >/dev/null
  # Pipe mode (perf record -o -), compressed: the event attributes come as records, then compressed data.
  perf record -q -z --buildid-mmap -e cpu-clock -c 50000 -o - -- "$out/loop.pie" 3000 2>/dev/null \
    > "$out/run-c-pipe-z.data"
  # perf's own reading of every recording: "count pid ip" per distinct (pid, ip).
  for d in run-a run-b run-a-z run-c-pipe-z; do
    perf script -i "$out/$d.data" -F pid,ip | LC_ALL=C sort | uniq -c > "$out/$d.perf-script.txt"
  done
  # perf2bolt's per-function attribution (no branch stacks here: --ba).
  if command -v perf2bolt-22 >/dev/null; then
    for d in run-a run-a-z; do
      perf2bolt-22 --ba -p "$out/$d.data" -o "$out/$d.fdata" "$out/loop.pie" >/dev/null 2>&1
    done
  fi
else
  echo "61-perf-map: perf record is not permitted here: recordings not remade" >&2
fi
rm -f "$out"/*.data.old
ls -l "$out"
