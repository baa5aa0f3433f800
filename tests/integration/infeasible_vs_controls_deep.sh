#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# infeasible_vs_controls.sh's cell behind a pfifo of 1,000 packets (issue 9
# point 4, the deep case): the same runs and bounds. In OPEN, not TESTS:
# the flagged flow's floor fails in some runs (OPEN has the figures).
TCPAV_INFEASIBLE_QUEUES=1000 exec bash "$(dirname "$0")/infeasible_vs_controls.sh"
