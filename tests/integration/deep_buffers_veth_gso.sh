#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Issue 9 point 1, the byte queues fed whole GSO super-packets: the sender's
# offloads at host defaults over veth (TB_OFFLOADS=host), which never cuts
# them, so the bfifos of 151,400 and 1,514,000 bytes admit and drop whole
# 64 KB units (TSO autosizing gives every flow 64 KB below 512 us of min
# RTT, tcp_tso_rtt_log). deep_buffers.sh's checks at EB 25 and 30. In OPEN:
# see that file for how often they fail. About 2 minutes.
DEEP_GRID="151400b:host 1514000b:host" exec bash "$(dirname "$0")/deep_buffers.sh"
