#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Issue 9 point 1, the cells of 100 frames, which hold every bound of the
# point in every run measured: deep_buffers.sh's checks (AVR within
# [0.95, 1.10], CUBIC >= 85 % of the rest, no window above 1.25 T, no
# stall), EB 25 and 30 Mbit/s, T = EB/2 among 3 CUBIC, on
#  - a pfifo of 100 packets, offloads off;
#  - a bfifo of 151,400 bytes with the sender's stack at host defaults (GSO
#    super-packets of up to 64 KB, TSO autosizing) and its device cutting
#    them into frames, as a host's NIC puts them on the wire and a real AP
#    queues them (TB_OFFLOADS=nic; measured: 6 of 6 runs at AVR
#    1.055-1.060, largest window 1.08-1.14 T, while the gain stopped at 1;
#    with its floor under 1, AVR 0.996-1.005 in all four cells, in 3 runs
#    each, 2 s windows 0.96-1.08 T). The receiver then acks
#    every second frame, so the sender's super-packets are smaller (3.3
#    segments at its device, tb_impair.sh) than over veth (16).
# The 1,000-frame queues are deep_buffers.sh's own grid; the bfifos fed
# whole 64 KB super-packets over veth (TB_OFFLOADS=host) are
# deep_buffers_veth_gso.sh (OPEN).
# About 100 s.
DEEP_GRID="100:off 151400b:nic" exec bash "$(dirname "$0")/deep_buffers.sh"
