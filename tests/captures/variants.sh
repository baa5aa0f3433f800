#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/captures/variants.sh BUILD [DIR] - writes the corpus files the
# project's tools make (MANIFEST.md, "Synthetic and broken captures") into
# DIR (default: tests/captures): the synthetic 802.11 and link-type
# captures of gen_radiotap, the VLAN and QinQ variants vlan_tag makes of
# Ethernet recordings (this test bed's kernel has no 802.1Q), and the broken
# variants pcap_mangle makes of recordings in tests/captures. No network,
# no root. Deterministic: tests/golden/coverage.sh checks that the
# committed files are what this writes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${1:?usage: variants.sh BUILD [DIR]}
out=${2:-$here}
[[ $build == /* ]] || build=$top/$build
tools=$build/tests
mkdir -p "$out"
"$tools/gen_radiotap" "$out"
# 802.1Q VLAN 100; QinQ: 802.1ad service VLAN 200 around 802.1Q VLAN 100
"$tools/vlan_tag" "$here/eth_loss_snd.pcap" "$out/vlan_loss_snd.pcap" 100
"$tools/vlan_tag" "$here/eth6_loss_rcv.pcap" "$out/qinq_loss_rcv6.pcap" 100 200
m() { "$tools/pcap_mangle" "$here/$1" "$out/$2" "${@:3}"; }
m eth_loss_snd.pcap bad_rec_eth_headers.pcap first=40 ihl=7:3 iplen=8:3000 iplen=9:10 doff=10:3 doff=12:15
m eth6_loss_rcv.pcap bad_rec_ipv6_headers.pcap first=40 iplen=4:2000 doff=5:2
m sll_any_rcv.pcap bad_rec_sll_snaplen.pcap first=40 snaplen=40
m vlan_loss_snd.pcap bad_rec_vlan_cut.pcap first=30 cut
m eth_reorder_rcv.pcap bad_rec_reorder_block.pcapng first=30 pcapng-bad-block=20
m wifi_gen_radiotap.pcap bad_gen_radiotap_snaplen.pcap snaplen=128
