# The measurements images/bench-start.sh and images/bench-floor.sh share, so an agent's figures and the floor's are
# taken the same way. Sourced, not run.

# The median of the numbers on stdin, one per line.
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# Waits up to 30 s for the first line of LOG that contains READY (a fixed string), written by PID, started at T0
# (date +%s%N); sets ms (T0 to the line's ts=) and cpu (the user + system time PID had used when the line was seen,
# 10 ms ticks). Returns 1, with ms and cpu unset, when no such line came.
await_ready() {
  local log=$1 ready=$2 pid=$3 t0=$4 line ts
  unset ms cpu
  for _ in $(seq 1 3000); do grep -qF -- "$ready" "$log" && break; sleep 0.01; done
  line=$(grep -F -- "$ready" "$log" | head -1)
  [ -n "$line" ] || return 1
  cpu=$(awk '{print ($14 + $15) * 10}' "/proc/$pid/stat")
  ts=$(sed -n 's/^ts=\([^ ]*\).*/\1/p' <<< "$line")
  ms=$(( ($(date -d "$ts" +%s%N) - t0) / 1000000 ))
}

# Sets rss (VmRSS, MiB) and split (RssAnon and RssFile) of PID now.
idle_rss() {
  rss=$(awk '/VmRSS/ {printf "%.1f", $2/1024}' "/proc/$1/status")
  split=$(awk '/^Rss(Anon|File)/ {printf "%s %.1f ", $1, $2/1024}' "/proc/$1/status")
}
