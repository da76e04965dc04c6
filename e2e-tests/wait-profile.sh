#!/usr/bin/env bash
# Where the e2e scenarios wait: every 2 s, the line of the scenario class the Failsafe JVM's test thread is on
# (jstack) and the machine's idle share since the last sample (/proc/stat). At the end (Ctrl-C, or when the
# Failsafe JVM is gone after it was seen), the seconds spent and the idle core-seconds per line, most idle first.
#   e2e-tests/wait-profile.sh OUT.log &   # then run the ITs, e.g. ./mvnw -pl e2e-tests verify -Dit.test=...
# Failsafe runs two IT classes at a time (two JVMs); this follows one of them, so name one class with -Dit.test.
set -uo pipefail
out=${1:?usage: wait-profile.sh OUT.log}
: > "$out"
report() {
  awk '{ split($2, a, "="); n[$3]++; idle[$3] += a[2] / 100 }
       END { for (k in n) printf "%6.0f s  %6.1f idle core-s  %s\n", n[k] * 2, idle[k] * 2 * 2, k }' "$out" |
    sort -k3 -rn | head -40
}
trap 'report; exit 0' INT TERM
read -r _ u0 n0 s0 i0 w0 q0 sq0 st0 _ < /proc/stat
seen=0
while true; do
  sleep 2
  read -r _ u n s i w q sq st _ < /proc/stat
  total=$(( (u + n + s + i + w + q + sq + st) - (u0 + n0 + s0 + i0 + w0 + q0 + sq0 + st0) ))
  idle=$(( total > 0 ? 100 * ((i + w) - (i0 + w0)) / total : 0 ))
  u0=$u n0=$n s0=$s i0=$i w0=$w q0=$q sq0=$sq st0=$st
  pid=""
  for p in $(pgrep -f surefirebooter); do [ "$(cat /proc/"$p"/comm 2>/dev/null)" = java ] && pid=$p; done
  if [ -z "$pid" ]; then
    [ "$seen" = 1 ] && { report; exit 0; }
    continue
  fi
  seen=1
  # the JDK that runs the tests
  jstack="$(dirname "$(readlink -f /proc/"$pid"/exe)")/jstack"
  line=$("$jstack" "$pid" 2>/dev/null | awk '/^"main"/ { m = 1; next } m && /^$/ { exit }
      m && /at org\.gpuoperator\.e2e\./ { n = split($2, parts, "."); print parts[n - 2] "." parts[n - 1] "." parts[n]; exit }')
  [ -n "$line" ] && echo "$(date +%T) idle=$idle $line" >> "$out"
done
