# SPDX-License-Identifier: GPL-2.0
# stations.jq - avmon's stations against tshark's per-station table of data
# frames (*.wlan_stations.tsv: ToDS = up = the station transmits, FromDS =
# down). Input: the TSV as one raw string; $sum[0]: avmon's summary.
# Output: "FIELD<TAB>MISMATCHES<TAB>COMPARED<TAB>first mismatch" per field.
def rows: split("\n") | map(select(length > 0) | split("\t"))
  | .[0] as $h | .[1:] | map(. as $r | reduce range(0; $h | length) as $i ({}; .[$h[$i]] = $r[$i]));
def fields: [
  ["up_frames", "tx_data_frames"], ["up_l2bytes", "tx_data_bytes"], ["up_retry_frames", "tx_data_retries"],
  ["down_frames", "rx_data_frames"], ["down_l2bytes", "rx_data_bytes"], ["down_retry_frames", "rx_data_retries"]
];
($sum[0].stations | map({key: (.mac // .addr), value: .}) | from_entries) as $a
| rows as $o
| fields[] as $f
| [ $o[] | {station: .station, want: (.[$f[0]] | tonumber), got: ($a[.station][$f[1]] // "missing")} ]
| map(select(.want != .got)) as $bad
| [$f[1], ($bad | length), ($o | length), ($bad[0] // "" | tostring)] | @tsv
