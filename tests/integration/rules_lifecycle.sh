#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The life of rules and of exec's cgroups:
#  1. eight `rule add` / `exec` started at the same instant (a FIFO barrier),
#     five rounds: no rule is lost, no id is given twice, each exec's rule
#     holds its own cgroup; eight concurrent `rule del` then leave none;
#  2. an IPv4 rule matches the IPv4 connections of IPv6 sockets (addresses
#     ::ffff:a.b.c.d): a dual-stack `iperf3 -s` (listening on ::) sending
#     with -R to an IPv4 client gets the rule's tcp_av and target (--dst),
#     or its CC (--src); and a v6 socket connecting to ::ffff:a.b.c.d gets
#     the rule too (--dst, active open). ss, the kernel's view, is checked;
#  3. an exec whose tcpavctl is killed with SIGKILL: its command dies with
#     it, `rule gc` removes its rule and cgroup and leaves a running exec's
#     alone; processes it left behind keep their cgroup and rule until they
#     end, after which `tcpavctl load` removes both;
#  4. exec makes its cgroup below the caller's own cgroup (also an exec
#     inside an exec); where that cgroup may have no children
#     (cgroup.max.descendants 0) exec fails with one line and adds nothing.
. "$(dirname "$0")/lib.sh"
tcpav_test_begin tavl "$(tb_htb_rate_for_eb 25000000)" 100
CGROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
CALLER_CG=$CGROOT/tcpav-test-caller-$$
BG_PIDS=() EXEC_PIDS=()

# Besides the testbed and tcp_av: our background tcpavctl runs (BG_PIDS,
# those that may still run), whatever runs in the cgroups of our execs
# (EXEC_PIDS, all of them) and in CALLER_CG, and those cgroups.
kill_procs_in() {
    local p
    while read -r p; do kill -KILL "$p" 2>/dev/null || true; done <"$1/cgroup.procs"
}
_lifecycle_cleanup() {
    local pid dir
    for pid in ${BG_PIDS[@]+"${BG_PIDS[@]}"}; do kill -KILL "$pid" 2>/dev/null || true; done
    for pid in ${EXEC_PIDS[@]+"${EXEC_PIDS[@]}"}; do
        dir=$CGROOT/tcpav-exec-$pid
        [[ ! -d $dir ]] || kill_procs_in "$dir"
    done
    if [[ -d $CALLER_CG ]]; then
        while read -r dir; do kill_procs_in "$dir"; done < <(find "$CALLER_CG" -type d)
    fi
    sleep 0.2
    for pid in ${EXEC_PIDS[@]+"${EXEC_PIDS[@]}"}; do rmdir "$CGROOT/tcpav-exec-$pid" 2>/dev/null || true; done
    find "$CALLER_CG" -depth -type d -exec rmdir {} \; 2>/dev/null || true
}
# shellcheck disable=SC2034 # read by testbed.sh's trap
TB_EXTRA_CLEANUP="_lifecycle_cleanup; _tcpav_cleanup"

rules() { "$TCPAVCTL" rule list --json; }
# wait_for SECONDS CMD...: poll CMD every 50 ms until it succeeds
wait_for() {
    local end=$((SECONDS + $1))
    shift
    until "$@"; do
        ((SECONDS < end)) || return 1
        sleep 0.05
    done
}
nrules_is() { [[ $(rules | jq length) == "$1" ]]; }

# --- 1. eight at once
ROUNDS=5
lost=0 shared=0 wrong_cg=0 add_failed=0 exec_failed=0 left=0
for r in $(seq $ROUNDS); do
    fifo=$TMP/start.$r
    mkfifo "$fifo"
    ports=() pids=() execs=()
    for i in 1 2 3 4; do
        port=$((61000 + 10 * r + i))
        ports+=("$port")
        { timeout 10 cat "$fifo" >/dev/null
          exec "$TCPAVCTL" rule add --dport "$port" --cc tcp_av --rate "${i}M"; } >/dev/null &
        pids+=("$!")
        BG_PIDS+=("$!")
        # the command waits for the round's go file (at most 20 s)
        { timeout 10 cat "$fifo" >/dev/null
          exec "$TCPAVCTL" exec --rate "$((i + 4))M" -- \
              timeout 20 sh -c "while [ ! -e '$TMP/go.$r' ]; do sleep 0.05; done"; } &
        execs+=("$!")
        BG_PIDS+=("$!") EXEC_PIDS+=("$!")
    done
    sleep 0.5 # all eight blocked in open(fifo)
    exec 3>"$fifo"
    exec 3>&-
    for p in "${pids[@]}"; do wait "$p" || add_failed=$((add_failed + 1)); done
    wait_for 15 nrules_is 8 || true
    rules >"$TMP/rules.$r.json"
    n=$(jq length "$TMP/rules.$r.json")
    ids=$(jq -r '[.[].id] | sort | map(tostring) | join(",")' "$TMP/rules.$r.json")
    uniq_ids=$(jq '[.[].id] | unique | length' "$TMP/rules.$r.json")
    echo "# round $r: $n rules, ids $ids"
    ((n == 8)) || lost=$((lost + 1))
    ((uniq_ids == n)) || shared=$((shared + 1))
    jq -e --argjson p "$(printf '%s\n' "${ports[@]}" | jq -s .)" \
        '[.[] | select(has("dport")) | .dport] | sort == ($p | sort)' "$TMP/rules.$r.json" >/dev/null ||
        lost=$((lost + 1))
    # each exec's rule holds the id (inode) of its own cgroup tcpav-exec-PID
    for p in "${execs[@]}"; do
        ino=$(stat -c %i "$CGROOT/tcpav-exec-$p" 2>/dev/null || echo none)
        jq -e --arg i "$ino" '[.[] | select(.cgroup_id != null and (.cgroup_id | tostring) == $i)] | length == 1' \
            "$TMP/rules.$r.json" >/dev/null || wrong_cg=$((wrong_cg + 1))
    done
    touch "$TMP/go.$r"
    for p in "${execs[@]}"; do wait "$p" || exec_failed=$((exec_failed + 1)); done
    # the port rules stay; eight concurrent dels (four of them of ids
    # already deleted by the others, which must fail cleanly) remove them
    rules >"$TMP/after.$r.json"
    jq -e 'length == 4 and all(.[]; has("dport"))' "$TMP/after.$r.json" >/dev/null || left=$((left + 1))
    dels=()
    for id in $(jq '.[].id' "$TMP/after.$r.json") $(jq '.[].id' "$TMP/after.$r.json"); do
        "$TCPAVCTL" rule del "$id" >/dev/null 2>&1 &
        dels+=("$!")
    done
    ok_dels=0
    for p in "${dels[@]}"; do wait "$p" && ok_dels=$((ok_dels + 1)); done
    nrules_is 0 && ((ok_dels == 4)) || left=$((left + 1))
    BG_PIDS=()
done
check "concurrent: every add returned 0 ($add_failed failed)" test $add_failed = 0
check "concurrent: no rule lost in $ROUNDS rounds of 8 ($lost rounds lost one)" test $lost = 0
check "concurrent: no id given twice in $ROUNDS rounds of 8 ($shared rounds shared one)" test $shared = 0
check "concurrent: each exec's rule matches its own cgroup ($wrong_cg did not)" test $wrong_cg = 0
check "concurrent: every exec's command ran and returned 0 ($exec_failed failed)" test $exec_failed = 0
check "concurrent: execs removed only their own rules; 8 concurrent dels removed each port rule once" test $left = 0
check "concurrent: no exec cgroup left" bash -c "! ls -d '$CGROOT'/tcpav-exec-* 2>/dev/null"

# --- 2. IPv4 rules and IPv4-mapped IPv6 sockets. The dual-stack server
# runs on the sending side of the bottleneck ($TB_SND), the client on the
# other ($TB_RCV), so with -R the server's data crosses the bottleneck.
CLIENT_NET=${TB_RCV_ADDR%.*}.0/24
# ss_sport NS PORT: the first line and the info line of the connection from
# local PORT that sent most (the data connection, not iperf3's control one)
ss_sport() {
    ip netns exec "$1" ss -tinH "sport = :$2" | awk '
        /^[ \t]/ { b = match($0, /bytes_acked:[0-9]+/) ? substr($0, RSTART + 12, RLENGTH - 12) + 0 : 0
                   if (b >= best) { best = b; line = $0; head = prev } next }
        { prev = $0 } END { print head; print line }'
}
cc_of() { awk '/^[ \t]/ { for (i = 1; i <= NF; i++) if ($i ~ /^(tcp_av|cubic|reno|bbr)$/) print $i }' <<<"$1"; }
mapped_local() { grep -q "\[::ffff:$2\]:$3" <<<"$1"; }
# dual_stack_run SECONDS: iperf3 -s on port 5201 in $TB_SND, a client in
# $TB_RCV with -R; samples ss (HEAD_LINE, INFO) and `tcpavctl flows --json`
# ($TMP/mapped-flows.json) halfway
dual_stack_run() {
    local srv cli out
    ip netns exec "$TB_SND" iperf3 -s -1 -p 5201 </dev/null >/dev/null 2>&1 &
    srv=$!
    wait_for 5 bash -c "ip netns exec $TB_SND ss -ltnH 'sport = :5201' | grep -q ." || true
    LISTEN=$(ip netns exec "$TB_SND" ss -ltnH "sport = :5201")
    tb_iperf_client "$TB_RCV" "$TB_SND_ADDR" 5201 "$1" "$TMP/mapped.json" -R >/dev/null
    cli=$TB_LAST_PID
    sleep "$(awk -v s="$1" 'BEGIN { print s / 2 }')"
    out=$(ss_sport "$TB_SND" 5201)
    "$TCPAVCTL" flows --json >"$TMP/mapped-flows.json"
    tb_wait "$cli" || true
    wait "$srv" 2>/dev/null || true
    HEAD_LINE=$(head -1 <<<"$out") INFO=$(tail -1 <<<"$out")
}

id=$("$TCPAVCTL" rule add --sport 5201 --dst "$CLIENT_NET" --cc tcp_av --rate 6M | awk '{ sub(":", "", $2); print $2 }')
dual_stack_run 4
peer=$(awk '{ print $NF }' <<<"$HEAD_LINE")
peer4=${peer#\[::ffff:} peer4=${peer4/\]/}
echo "# listener: $LISTEN"
echo "# server socket: $HEAD_LINE"
echo "# $(cc_of "$INFO"), pacing_rate $(ss_field "$INFO" pacing_rate), cwnd $(ss_field "$INFO" cwnd), srtt $(ss_field "$INFO" rtt) ms"
check "iperf3 -s listens dual-stack (on [::] or *)" grep -qE '(\[::\]|\*):5201' <<<"$LISTEN"
check "--dst $CLIENT_NET: the server's socket is IPv4-mapped IPv6 ([::ffff:$TB_SND_ADDR]:5201)" \
    mapped_local "$HEAD_LINE" "$TB_SND_ADDR" 5201
check "--dst $CLIENT_NET: iperf3 -s -R sends on tcp_av (ss shows '$(cc_of "$INFO")')" test "$(cc_of "$INFO")" = tcp_av
check "--dst $CLIENT_NET: tcpavctl flows shows it ($peer4) with the rule's 6 Mbit/s target" \
    flow_listed "$TMP/mapped-flows.json" "$peer4" 6000000
check "--dst $CLIENT_NET: the kernel paces it within the law's range for T = 6M" pacing_in_law "$INFO" 6000000
"$TCPAVCTL" rule del "$id" >/dev/null

# --src (the server's own address), another CC; a non-matching IPv4 rule
# with a lower id is passed over
"$TCPAVCTL" rule add --sport 5201 --src 10.99.0.0/16 --cc tcp_av --rate 3M >/dev/null
"$TCPAVCTL" rule add --sport 5201 --src "$TB_SND_ADDR" --cc reno >/dev/null
dual_stack_run 3
check "--src $TB_SND_ADDR --cc reno: the mapped server socket runs on reno (ss shows '$(cc_of "$INFO")')" \
    test "$(cc_of "$INFO")" = reno
for id in $(rules | jq '.[].id'); do "$TCPAVCTL" rule del "$id" >/dev/null; done

# active open: an IPv6 socket connecting to ::ffff:RCV
"$TCPAVCTL" rule add --dport 5202 --dst "$TB_RCV_ADDR/32" --cc tcp_av --rate 5M >/dev/null
tb_iperf_servers "$TB_RCV" 5202
tb_iperf_client "$TB_SND" "::ffff:$TB_RCV_ADDR" 5202 3 "$TMP/mapped-active.json" >/dev/null
cli=$TB_LAST_PID
sleep 1.5
line=$(ip netns exec "$TB_SND" ss -tinH "dport = :5202" | awk '/^[ \t]/ { print; exit }')
head_line=$(ip netns exec "$TB_SND" ss -tnH "dport = :5202" | head -1)
tb_wait "$cli" || true
check "active open to ::ffff:$TB_RCV_ADDR: the client socket is IPv4-mapped" grep -q '::ffff:' <<<"$head_line"
check "active open, --dst $TB_RCV_ADDR/32: the client runs on tcp_av (ss shows '$(cc_of "$line")')" \
    test "$(cc_of "$line")" = tcp_av
for id in $(rules | jq '.[].id'); do "$TCPAVCTL" rule del "$id" >/dev/null; done

# --- 3. exec killed with SIGKILL
# exec_started PID: the exec's command runs in its cgroup
exec_started() { [[ -s $CGROOT/tcpav-exec-$1/cgroup.procs ]]; }
rule_of_cg() { rules | jq -e --arg i "$(stat -c %i "$1" 2>/dev/null || echo none)" \
    'any(.[]; (.cgroup_id | tostring) == $i)' >/dev/null; }

"$TCPAVCTL" exec --rate 4M -- timeout 30 sh -c "while [ ! -e '$TMP/live.go' ]; do sleep 0.05; done" &
live=$!
BG_PIDS+=("$live") EXEC_PIDS+=("$live")
"$TCPAVCTL" exec --rate 5M -- sleep 30 &
victim=$!
BG_PIDS+=("$victim") EXEC_PIDS+=("$victim")
wait_for 5 exec_started "$live" || true
wait_for 5 exec_started "$victim" || true
victim_cg=$CGROOT/tcpav-exec-$victim live_cg=$CGROOT/tcpav-exec-$live
victim_cmd=$(head -1 "$victim_cg/cgroup.procs" 2>/dev/null || echo 0)
kill -KILL "$victim"
wait "$victim" 2>/dev/null || true
# dead: gone, or a zombie. The orphan is reparented to PID 1, which here
# (and in CI) is not a prompt reaper, so `kill -0` would still succeed.
pid_dead() { local st; st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 0; [[ -z $st || $st == Z ]]; }
check "SIGKILL: the command (pid $victim_cmd) dies with its tcpavctl" \
    eval '(( victim_cmd > 0 )) && wait_for 2 pid_dead "$victim_cmd"' 
check "SIGKILL: before gc its cgroup is left" test -d "$victim_cg"
check "SIGKILL: before gc its rule is left" rule_of_cg "$victim_cg"
"$TCPAVCTL" rule gc >"$TMP/gc.out" || true
sed 's/^/# gc: /' "$TMP/gc.out"
check "rule gc: removes the killed exec's cgroup" test ! -d "$victim_cg"
check "rule gc: removes its rule (one rule left: the running exec's)" nrules_is 1
check "rule gc: leaves the running exec's cgroup and rule" rule_of_cg "$live_cg"
check "rule gc: says what it removed" grep -q "removed cgroup $victim_cg" "$TMP/gc.out"
touch "$TMP/live.go"
rc=0; wait "$live" || rc=$?
check "the running exec carries on and ends normally (status $rc)" test "$rc" = 0

# processes left behind: kept while they run, removed by load after
"$TCPAVCTL" exec --rate 5M -- sh -c 'sleep 3 & exec sleep 30' &
victim=$!
BG_PIDS+=("$victim") EXEC_PIDS+=("$victim")
wait_for 5 bash -c "[[ \$(wc -l < $CGROOT/tcpav-exec-$victim/cgroup.procs) == 2 ]]" 2>/dev/null || true
victim_cg=$CGROOT/tcpav-exec-$victim
kill -KILL "$victim"
wait "$victim" 2>/dev/null || true
sleep 0.2
"$TCPAVCTL" rule gc >"$TMP/gc2.out" || true
sed 's/^/# gc: /' "$TMP/gc2.out"
check "rule gc: a cgroup where a left-behind process still runs is kept, with its rule" \
    bash -c "[[ -d $victim_cg ]] && grep -q 'kept cgroup $victim_cg' $TMP/gc2.out"
check "rule gc: ... and its rule" rule_of_cg "$victim_cg"
wait_for 8 bash -c "grep -q 'populated 0' $victim_cg/cgroup.events" || true
"$TCPAVCTL" load >"$TMP/load.out" || true
sed 's/^/# load: /' "$TMP/load.out"
check "load: once the process ended, removes that cgroup" test ! -d "$victim_cg"
check "load: ... and its rule" nrules_is 0
BG_PIDS=()

# --- 4. below the caller's cgroup
mkdir "$CALLER_CG"
# in_caller CMD...: CMD run from a shell that moved itself into CALLER_CG
in_caller() { bash -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CALLER_CG" "$@"; }
in_caller "$TCPAVCTL" exec --rate 5M -- cat /proc/self/cgroup >"$TMP/self.cg"
in_caller "$TCPAVCTL" exec --rate 5M -- "$TCPAVCTL" exec --rate 3M -- cat /proc/self/cgroup >"$TMP/nested.cg"
rel=${CALLER_CG#"$CGROOT"}
echo "# exec from $rel: $(grep '^0::' "$TMP/self.cg"); nested: $(grep '^0::' "$TMP/nested.cg")"
check "exec: its cgroup is a child of the caller's ($rel/tcpav-exec-N)" \
    grep -qE "^0::$rel/tcpav-exec-[0-9]+$" "$TMP/self.cg"
check "exec inside exec: a child of the outer exec's cgroup" \
    grep -qE "^0::$rel/tcpav-exec-[0-9]+/tcpav-exec-[0-9]+$" "$TMP/nested.cg"
check "exec: nothing left below the caller's cgroup, no rule left" \
    bash -c "[[ -z \$(find '$CALLER_CG' -mindepth 1 -type d) ]] && [[ \$('$TCPAVCTL' rule list --json) == '[]' ]]"
echo 0 >"$CALLER_CG/cgroup.max.descendants"
rc=0
in_caller "$TCPAVCTL" exec --rate 5M -- touch "$TMP/ran" >"$TMP/fail.out" 2>"$TMP/fail.err" || rc=$?
echo "# max.descendants 0: rc=$rc: $(head -c 200 "$TMP/fail.err")"
check "exec where no child cgroup may be made: nonzero exit ($rc)" test "$rc" -ne 0
check "... one line naming the caller's cgroup" \
    bash -c "[[ \$(wc -l < $TMP/fail.err) == 1 ]] && grep -q 'below the caller.s cgroup' $TMP/fail.err"
check "... the command did not run, no rule, no cgroup" \
    bash -c "[[ ! -e $TMP/ran && \$('$TCPAVCTL' rule list --json) == '[]' && -z \$(find '$CALLER_CG' -mindepth 1 -type d) ]]"
rmdir "$CALLER_CG"

rc=0; "$TCPAVCTL" rule gc extra >/dev/null 2>"$TMP/bad.err" || rc=$?
check "rule gc with an argument: one line, nonzero exit" \
    bash -c "[[ $rc != 0 && \$(wc -l < $TMP/bad.err) == 1 ]] && grep -q \"unexpected argument 'extra'\" $TMP/bad.err"
check "nothing left: namespaces, pins, registration, exec cgroups" nothing_left tavl
finish
