# The cost of each step of scripts/test.sh, scripts/bench.sh and .ci/run, in seconds. Sourced,
# not run. CI's time has a budget (docs/contributing.md); every run prints where it went.
#
#   phase NAME CMD…    runs CMD; when KKTDAE_PHASES names a file, appends a line to it:
#                      NAME <tab> wall s <tab> CPU s <tab> exit code
#   phase_note TEXT    appends a line of text (printed above the table)
#   phase_report       prints the table (a phase cut off by a signal shows as "cut off")
#
# CPU seconds are user + sys of everything the phase waited for (compilers, tests): the work,
# which a machine shared with other builds stretches much less than the wall time. They come
# from /proc/$$/stat's cutime and cstime, the same counters as the shell's `times`.

_phase_cpu() {
  local stat fields
  stat=$(</proc/$$/stat)
  read -ra fields <<<"${stat##*) }"  # after "pid (comm) ": state is field 0, cutime field 13
  echo $((fields[13] + fields[14]))
}

phase() {
  local name=$1
  shift
  [[ -n ${KKTDAE_PHASES:-} ]] || { "$@"; return; }
  local start cpu rc=0
  start=$(date +%s.%N)
  cpu=$(_phase_cpu)
  printf '%s\t%s\n' "$name" "$start" >"$KKTDAE_PHASES.running"
  "$@" || rc=$?
  rm -f "$KKTDAE_PHASES.running"
  awk -v n="$name" -v s="$start" -v e="$(date +%s.%N)" -v c0="$cpu" -v c1="$(_phase_cpu)" \
      -v hz="$(getconf CLK_TCK)" -v rc="$rc" \
      'BEGIN { printf "%s\t%.1f\t%.1f\t%d\n", n, e - s, (c1 - c0) / hz, rc }' >>"$KKTDAE_PHASES"
  return "$rc"
}

phase_note() {
  [[ -z ${KKTDAE_PHASES:-} ]] || printf '#\t%s\n' "$*" >>"$KKTDAE_PHASES"
}

phase_report() {
  [[ -n ${KKTDAE_PHASES:-} && -f $KKTDAE_PHASES ]] || return 0
  if [[ -f $KKTDAE_PHASES.running ]]; then
    local name start
    IFS=$'\t' read -r name start <"$KKTDAE_PHASES.running"
    awk -v n="$name" -v s="$start" -v e="$(date +%s.%N)" \
        'BEGIN { printf "%s\t%.1f\t\tcut off\n", n, e - s }' >>"$KKTDAE_PHASES"
    rm -f "$KKTDAE_PHASES.running"
  fi
  # Notes first, so that the output ends with the table and its total.
  awk -F'\t' '$1 == "#" { print "  " $2 }' "$KKTDAE_PHASES"
  awk -F'\t' '
    BEGIN { printf "%-34s %9s %9s  %s\n", "phase (seconds)", "wall", "CPU", "result" }
    $1 == "#" { next }
    {
      result = $4 == "cut off" ? "cut off" : ($4 == 0 ? "ok" : "exit " $4)
      printf "%-34s %9.1f %9s  %s\n", $1, $2, $3 == "" ? "-" : sprintf("%.1f", $3), result
      wall += $2; cpu += $3
    }
    END { printf "%-34s %9.1f %9.1f\n", "total", wall, cpu }' "$KKTDAE_PHASES"
}
