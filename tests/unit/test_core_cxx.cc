// SPDX-License-Identifier: GPL-2.0
// test_core_cxx.cc - core.h must compile and behave the same as C++ (the
// ns-3 adapter includes it): a short ACK sequence, checked against the law.
#include <cstdio>

#include "check.h"
#include "tcpav/core.h"

int main()
{
	tcpav_state st;
	tcpav_out out;
	const __u64 target = 1500000; // bytes/s

	tcpav_init(&st, 10, target, 0, 0);
	for (__u32 i = 1; i <= 200; i++) {
		tcpav_ack a = {};

		a.now_us = i * 2000ull;
		a.delivered = i * 2;
		a.prior_delivered = a.delivered - 2;
		a.acked = 2;
		a.inflight = 40;
		a.srtt_us = 40000;
		a.mss = 1448;
		tcpav_on_ack(&st, &a, &out);
		if (out.cwnd != tcpav_max_u32(st.g_wnd, st.e_wnd))
			break;
	}
	CHECK(out.cwnd == tcpav_max_u32(st.g_wnd, st.e_wnd), "C++: cwnd = max(G, E) (%u)", out.cwnd);
	CHECK(out.pacing_needed == 1, "C++: a target turns pacing on");
	CHECK(st.gain >= TCPAV_GAIN_MIN && st.gain <= TCPAV_GAIN_MAX, "C++: gain %u within bounds", st.gain);
	__u32 ssthresh = tcpav_on_loss_event(&st, 0);
	CHECK(ssthresh == st.e_wnd && st.g_wnd > 0, "C++: a loss event cuts E (to %u), not G (%u)", st.e_wnd, st.g_wnd);
	return check_done();
}
