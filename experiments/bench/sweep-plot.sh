#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# experiments/bench/sweep-plot.sh CELLS_CSV [OUTDIR] -- the plots of a
# tcpav-sweep.sh run, beside its CSV: OUTDIR (default: CELLS_CSV's
# directory) gets
#   avr.png          AVR of the slot flow against NRT, one panel per
#                    queue/offload setting, one line per CC in the slot
#                    (median of the runs; bars from the lowest to the
#                    highest run)
#   competitors.png  the CUBIC competitors' goodput together, Mbit/s, laid
#                    out the same way (what the slot's CC leaves them)
# and the data files it plotted (plot-SETTING-CC.dat: nrt_percent
# avr_median avr_min avr_max competitors_mbps_median _min _max).
# Needs gnuplot (Debian: gnuplot-nox); without it, says so and exits 0
# (the CSV is the result, the plots are a view of it).
set -euo pipefail

die() { echo "sweep-plot: $*" >&2; exit 1; }

csv=${1:-}
[[ -n $csv ]] || die "usage: sweep-plot.sh CELLS_CSV [OUTDIR]"
[[ -r $csv ]] || die "cannot read '$csv'"
out=${2:-$(dirname -- "$csv")}
[[ -d $out && -w $out ]] || die "'$out' is not a writable directory"
if ! command -v gnuplot >/dev/null; then
    echo "sweep-plot: skip: gnuplot is not installed (apt install gnuplot-nox); the CSV is in $csv"
    exit 0
fi

# the columns by name, so that a reordered header still plots right
header=$(grep -v '^#' -- "$csv" | head -n 1)
for col in queue offloads nrt slot_cc runs_ok avr_min avr_median avr_max \
    competitor_goodput_bps_min competitor_goodput_bps_median competitor_goodput_bps_max; do
    tr ',' '\n' <<<"$header" | grep -qx "$col" || die "$csv: no column '$col' (not a tcpav-sweep cells.csv?)"
done

# one data file per setting and CC, in the order the sweep ran them
rm -f -- "$out"/plot-*.dat
awk -F, -v out="$out" '
    /^#/ { next }
    !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
    $(c["runs_ok"]) == 0 || $(c["avr_median"]) == "" { next }
    {
        s = $(c["queue"]) "_" $(c["offloads"]); cc = $(c["slot_cc"])
        if (!(s in seen_s)) { seen_s[s] = 1; print "S " s > (out "/plot.order") }
        if (!(cc in seen_c)) { seen_c[cc] = 1; print "C " cc > (out "/plot.order") }
        f = out "/plot-" s "-" cc ".dat"
        printf "%g %s %s %s %g %g %g\n", 100 * $(c["nrt"]), $(c["avr_median"]), $(c["avr_min"]), $(c["avr_max"]),
            $(c["competitor_goodput_bps_median"]) / 1e6, $(c["competitor_goodput_bps_min"]) / 1e6,
            $(c["competitor_goodput_bps_max"]) / 1e6 > f
    }' "$csv"
[[ -s $out/plot.order ]] || die "$csv: no cell with a good run to plot"
mapfile -t settings < <(awk '$1 == "S" { print $2 }' "$out/plot.order")
mapfile -t ccs < <(awk '$1 == "C" { print $2 }' "$out/plot.order")
rm -f -- "$out/plot.order"

# label: "100_off" -> "pfifo 100, offloads off"; "151400b_nic" -> "bfifo 151400 B, offloads nic"
label() {
    local q=${1%_*} o=${1##*_}
    if [[ $q == *b ]]; then echo "bfifo ${q%b} B, offloads $o"; else echo "pfifo $q, offloads $o"; fi
}

n=${#settings[@]}
cols=$((n < 3 ? n : 3))
rows=$(((n + cols - 1) / cols))
plot() { # FILE YLABEL COL_MED COL_MIN COL_MAX [REFERENCE_LINE]
    local file=$1 ylabel=$2 m=$3 lo=$4 hi=$5 ref=${6:-} s cc first
    {
        echo "set terminal pngcairo noenhanced size $((cols * 480)),$((rows * 360)) font ',9'"
        echo "set output '$file'"
        echo "set multiplot layout $rows,$cols"
        echo "set xlabel 'NRT (%)'; set ylabel '$ylabel'; set key top right; set grid"
        echo "set xrange [0:100]; set yrange [0:*]"
        for s in "${settings[@]}"; do
            echo "set title '$(label "$s")'"
            [[ -z $ref ]] || echo "set arrow 1 from 0,$ref to 100,$ref nohead dashtype 2"
            printf 'plot '
            first=1
            for cc in "${ccs[@]}"; do
                [[ -s $out/plot-$s-$cc.dat ]] || continue
                ((first)) || printf ', '
                first=0
                printf "'%s' using 1:%d:%d:%d with yerrorlines title '%s'" "$out/plot-$s-$cc.dat" "$m" "$lo" "$hi" "$cc"
            done
            echo
        done
        echo "unset multiplot"
    } | gnuplot || die "gnuplot failed on $file"
}
plot "$out/avr.png" "AVR (goodput / T)" 2 3 4 1
plot "$out/competitors.png" "CUBIC competitors together (Mbit/s)" 5 6 7
echo "sweep-plot: $out/avr.png, $out/competitors.png (from $csv)"
