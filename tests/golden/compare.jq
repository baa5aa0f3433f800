# SPDX-License-Identifier: GPL-2.0
# compare.jq - avmon's summary against tshark's per-stream table.
# Input: the oracle's *.tcp_streams.tsv as one raw string (jq -R -s);
# $sum[0]: avmon's "type":"summary" object. Output: one line per field,
# "FIELD<TAB>MISMATCHES<TAB>COMPARED<TAB>first mismatch"; the first line,
# "endpoint_pairs", compares the sets of TCP endpoint pairs themselves (a
# flow avmon has and tshark has not, e.g. one split in two, is a mismatch).
#
# tshark numbers each incarnation of a 4-tuple as its own stream; avmon
# keeps one flow per 5-tuple, so streams are summed per endpoint pair, with
# directions aligned by endpoint (A of a later stream may be the other end).

def rows: split("\n") | map(select(length > 0) | split("\t"))
  | .[0] as $h | .[1:] | map(. as $r | reduce range(0; $h | length) as $i ({}; .[$h[$i]] = $r[$i]));

def num: if . == null or . == "NA" then 0 else tonumber end;

# tshark column -> avmon per-direction key
def fields: [
  ["frames", "packets"], ["payload", "payload_bytes"], ["seqspan", "goodput_bytes"],
  ["retx", "retransmissions"], ["dupack", "dup_acks"], ["sack_blocks", "sack_blocks"],
  ["pure_acks", "pure_acks"], ["ack_adv_n", "acks_advancing"], ["ack_adv_bytes", "bytes_acked"]
];
# tshark's per-stream columns (no direction) -> avmon's key, summed over
# both directions of the endpoint pair
def stream_fields: [
  ["out_of_order", "out_of_order"], ["fast_retx", "fast_retransmissions"],
  ["spurious_retx", "spurious_retransmissions"], ["lost_segment", "lost_segments"]
];

# per endpoint pair: {lo, hi, lo_to_hi: {avmon_key: n}, hi_to_lo: {...}}
def oracle_pairs: rows | reduce .[] as $s ({};
  ([$s.A, $s.B] | sort) as $k | ($k | join(" ")) as $key
  | (if $s.A == $k[0] then ["AB", "BA"] else ["BA", "AB"] end) as $d
  | reduce fields[] as $f (.;
      .[$key].lo_to_hi[$f[1]] += ($s[$f[0] + "_" + $d[0]] | num)
      | .[$key].hi_to_lo[$f[1]] += ($s[$f[0] + "_" + $d[1]] | num))
  | reduce stream_fields[] as $f (.; .[$key].both[$f[1]] += ($s[$f[0]] | num)));

# avmon writes an IPv6 endpoint as [ADDR]:PORT, tshark's columns as ADDR:PORT
def endpoint: sub("^\\[(?<addr>[^]]*)\\]:"; "\(.addr):");

def avmon_pairs: $sum[0].flows | map(select(.proto == "tcp")) | reduce .[] as $f ({};
  ([$f.src, $f.dst] | map(endpoint) | sort) as $k | ($k | join(" ")) as $key
  | (if ($f.src | endpoint) == $k[0] then ["a_to_b", "b_to_a"] else ["b_to_a", "a_to_b"] end) as $d
  | reduce fields[] as $x (.;
      .[$key].lo_to_hi[$x[1]] += ($f[$d[0]][$x[1]] // 0)
      | .[$key].hi_to_lo[$x[1]] += ($f[$d[1]][$x[1]] // 0))
  | reduce stream_fields[] as $x (.;
      .[$key].both[$x[1]] += (($f.a_to_b[$x[1]] // 0) + ($f.b_to_a[$x[1]] // 0))));

oracle_pairs as $o | avmon_pairs as $a
| ( (([$o | keys[]] - [$a | keys[]] | map("only in tshark: " + .))
      + ([$a | keys[]] - [$o | keys[]] | map("only in avmon: " + .))) as $bad
    | ["endpoint_pairs", ($bad | length), ([$o, $a | keys[]] | unique | length), ($bad[0] // "")] | @tsv ),
  ( ((fields[] | [.[1], ["lo_to_hi", "hi_to_lo"]]), (stream_fields[] | [.[1], ["both"]]))
    | .[0] as $field | .[1] as $dirs
    | [ $o | to_entries[] | .key as $key | $dirs[] as $dir
        | { key: $key, dir: $dir, want: .value[$dir][$field], got: ($a[$key][$dir][$field] // "missing") } ]
    | map(select(.want != .got)) as $bad
    | [$field, ($bad | length), (($o | length) * ($dirs | length)), ($bad[0] // "" | tostring)] | @tsv )
