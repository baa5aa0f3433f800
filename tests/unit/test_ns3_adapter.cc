// SPDX-License-Identifier: GPL-2.0
// test_ns3_adapter.cc - the ns-3 binding of tcp_av (experiments/wifi/tcp-av.cc)
// driven by a scripted ACK sequence: each tcpav_ack field it derives from
// ns-3's byte counts is checked against the value the script knows, and the
// window and pacing rate it writes against core.h run on those values.
#include <cstdio>
#include <cstring>

#include "check.h"
#include "ns3/core-module.h"
#include "../../experiments/wifi/tcp-av.h"

using namespace ns3;

static const uint32_t kSeg = 1448;

// field-by-field comparison; NAME of the first that differs, or NULL
static const char* DiffAck(const tcpav_ack& a, const tcpav_ack& b)
{
#define F(x) if (a.x != b.x) return #x
    F(now_us); F(max_pacing_Bps); F(delivered); F(prior_delivered); F(acked); F(losses);
    F(inflight); F(srtt_us); F(min_rtt_us); F(rtt_us); F(mss); F(pkt_bytes); F(app_limited);
    F(window_limited); F(in_recovery); F(undelivered); F(cwnd);
#undef F
    return nullptr;
}

static void TestAckOf()
{
    Ptr<TcpSocketState> tcb = CreateObject<TcpSocketState>();
    TcpRateOps::TcpRateConnection rc;
    TcpRateOps::TcpRateSample rs;
    TcpAv::Binding b;

    tcb->m_segmentSize = kSeg;
    tcb->m_cWnd = 5 * kSeg;
    tcb->m_maxPacingRate = DataRate("4Gb/s");
    tcb->m_minRtt = MicroSeconds(20000);
    tcb->m_lastRtt = MicroSeconds(25000); // ns-3's smoothed RTT
    tcb->m_highTxMark = SequenceNumber32(200000);
    tcb->m_lastAckedSeq = SequenceNumber32(200000 - 30 * kSeg + 100); // 29 segments and a part
    tcb->m_congState = TcpSocketState::CA_RECOVERY;
    rc.m_delivered = 100 * kSeg + 700;   // a short segment delivered: 100 whole
    rs.m_priorDelivered = 90 * kSeg;
    rs.m_ackedSacked = 2 * kSeg + 10;    // two segments and a part: 3 packets
    rs.m_bytesLoss = kSeg;
    rs.m_priorInFlight = 20 * kSeg;
    rs.m_isAppLimited = true;
    b.rttUs = 24000;
    b.lawCwnd = 33;

    tcpav_ack want{};
    want.now_us = 1234567;
    want.max_pacing_Bps = 500000000;
    want.delivered = 100;
    want.prior_delivered = 90;
    want.acked = 3;
    want.losses = 1;
    want.inflight = 20;
    want.srtt_us = 25000;
    want.min_rtt_us = 20000;
    want.rtt_us = 24000;
    want.mss = kSeg;
    want.pkt_bytes = kSeg;
    want.app_limited = 1;
    want.window_limited = 0;
    want.in_recovery = 1;
    want.undelivered = 30;
    want.cwnd = 33;
    tcpav_ack got = TcpAv::AckOf(*tcb, rc, rs, b, 1234567);
    const char* d = DiffAck(got, want);
    CHECK(d == nullptr, "AckOf in Recovery: every field as scripted (first difference: %s)", d ? d : "none");

    // after a timeout the socket's own window (one segment in ns-3) is the
    // window the rebuild starts from, not the law's last one
    tcb->m_congState = TcpSocketState::CA_LOSS;
    got = TcpAv::AckOf(*tcb, rc, rs, b, 1234567);
    CHECK(got.cwnd == 5 && got.in_recovery == 0, "AckOf in Loss: cwnd %u (want 5, the socket's), in_recovery %u",
          got.cwnd, got.in_recovery);
    tcb->m_congState = TcpSocketState::CA_CWR;
    got = TcpAv::AckOf(*tcb, rc, rs, b, 1234567);
    CHECK(got.in_recovery == 1 && got.cwnd == 33, "AckOf in CWR: reducing (in_recovery %u), the law's cwnd %u",
          got.in_recovery, got.cwnd);

    // a watched socket: losses are the rise of its lost bytes only; ns-3's
    // rs.m_bytesLoss is |change| and would count a repair as a loss
    b.lostWatched = true;
    b.lostAtRx = 5 * kSeg;
    b.lostNow = 3 * kSeg; // two lost segments repaired by this ACK
    rs.m_bytesLoss = 2 * kSeg;
    got = TcpAv::AckOf(*tcb, rc, rs, b, 1234567);
    CHECK(got.losses == 0, "a watched ACK that repairs 2 lost segments: losses %u (want 0)", got.losses);
    b.lostNow = 7 * kSeg + 1;
    got = TcpAv::AckOf(*tcb, rc, rs, b, 1234567);
    CHECK(got.losses == 3, "a watched ACK that marks 2 segments and a byte lost: losses %u (want 3)", got.losses);
    b.lostWatched = false;
    got = TcpAv::AckOf(*tcb, rc, rs, b, 1234567);
    CHECK(got.losses == 2, "unwatched: ns-3's |change| of 2 segments, losses %u (want 2)", got.losses);

    tcb->m_minRtt = Time::Max();
    tcb->m_lastRtt = Seconds(0);
    tcb->m_highTxMark = tcb->m_lastAckedSeq;
    got = TcpAv::AckOf(*tcb, rc, rs, b, 1);
    CHECK(got.min_rtt_us == 0 && got.srtt_us == 0 && got.undelivered == 0,
          "AckOf before an RTT sample, nothing outstanding: min_rtt %u, srtt %u, undelivered %u", got.min_rtt_us,
          got.srtt_us, got.undelivered);
}

// The script: a path delivering 10 Mbit/s with a 20 ms RTT, two segments an
// ACK; a loss event at ACK 600 (Recovery for 10 ACKs), a timeout at ACK 900.
struct Script
{
    Ptr<TcpAv> av;
    Ptr<TcpSocketState> tcb;
    tcpav_state ref;
    uint32_t refCwnd{10};
    unsigned acks{0}, fieldErrors{0}, cwndErrors{0}, pacingErrors{0};
    const char* firstField{nullptr};
    uint32_t ssthreshGot{0}, ssthreshWant{0};
    uint32_t cwndAfterTimeout{0};
    bool pacingOn{true};
};

static void Step(Script* s, unsigned i)
{
    const uint64_t nowUs = Simulator::Now().GetMicroSeconds();
    TcpRateOps::TcpRateConnection rc;
    TcpRateOps::TcpRateSample rs;
    tcpav_ack want{};
    tcpav_out out{};

    if (i == 600) {
        s->tcb->m_congState = TcpSocketState::CA_RECOVERY;
        s->ssthreshGot = s->av->GetSsThresh(s->tcb, 0);
        s->ssthreshWant = tcpav_on_loss_event(&s->ref, 2 * (i - 1)) * kSeg;
    }
    if (i == 610)
        s->tcb->m_congState = TcpSocketState::CA_OPEN;
    if (i == 900) {
        // TcpSocketBase on a retransmission timeout: ssthresh, one segment, Loss
        s->av->GetSsThresh(s->tcb, 0);
        tcpav_on_loss_event(&s->ref, 2 * (i - 1));
        s->tcb->m_cWnd = kSeg;
        s->tcb->m_congState = TcpSocketState::CA_LOSS;
        s->av->CongestionStateSet(s->tcb, TcpSocketState::CA_LOSS);
        tcpav_on_timeout(&s->ref);
    }
    if (i == 930)
        s->tcb->m_congState = TcpSocketState::CA_OPEN;

    // ns-3 3.37 sets m_lastRtt to its smoothed estimate and passes that to
    // PktsAcked: here it wanders between 20 and 26 ms, so a binding that
    // smoothed it again would lag and differ
    const uint32_t srttUs = 20000 + 1000 * (i % 7);
    s->tcb->m_lastRtt = MicroSeconds(srttUs);
    s->av->PktsAcked(s->tcb, 2, s->tcb->m_lastRtt);
    rc.m_delivered = 2ull * i * kSeg;
    rs.m_priorDelivered = (i > 9 ? 2 * (i - 9) : 0) * kSeg; // sent one RTT (9 ACKs) ago
    rs.m_ackedSacked = 2 * kSeg;
    rs.m_bytesLoss = i == 600 ? kSeg : 0;
    rs.m_priorInFlight = 18 * kSeg;
    s->tcb->m_highTxMark = SequenceNumber32(1 + (2 * i + 18) * kSeg);
    s->tcb->m_lastAckedSeq = SequenceNumber32(1 + 2 * i * kSeg);

    want.now_us = nowUs;
    want.max_pacing_Bps = 500000000;
    want.delivered = 2 * i;
    want.prior_delivered = i > 9 ? 2 * (i - 9) : 0;
    want.acked = 2;
    want.losses = i == 600;
    want.inflight = 18;
    want.srtt_us = srttUs;
    want.min_rtt_us = 0; // ns-3's socket keeps m_minRtt; the script leaves it unset
    want.rtt_us = srttUs;
    want.mss = kSeg;
    want.pkt_bytes = kSeg;
    want.in_recovery = i >= 600 && i < 610;
    want.undelivered = 18;
    want.cwnd = s->tcb->m_congState == TcpSocketState::CA_LOSS ? s->tcb->m_cWnd.Get() / kSeg : s->refCwnd;

    s->av->CongControl(s->tcb, rc, rs);
    s->acks++;
    const char* d = DiffAck(s->av->LastAck(), want);
    if (d) {
        s->fieldErrors++;
        if (!s->firstField) {
            s->firstField = d;
            printf("# ACK %u: field %s differs\n", i, d);
        }
    }
    tcpav_on_ack(&s->ref, &want, &out);
    s->refCwnd = out.cwnd;
    if (s->tcb->m_cWnd.Get() != out.cwnd * kSeg)
        s->cwndErrors++;
    if (s->tcb->m_pacingRate.Get().GetBitRate() != out.pacing_Bps * 8 ||
        s->tcb->m_pacing != (out.pacing_needed != 0))
        s->pacingErrors++;
    if (i == 900)
        s->cwndAfterTimeout = s->tcb->m_cWnd.Get() / kSeg;
    s->pacingOn = s->pacingOn && s->tcb->m_pacing;
}

static void TestScript()
{
    Script s;
    const unsigned n = 1200;

    s.av = CreateObject<TcpAv>();
    s.av->SetAttribute("TargetRate", DataRateValue(DataRate("8Mb/s")));
    s.tcb = CreateObject<TcpSocketState>();
    s.tcb->m_segmentSize = kSeg;
    s.tcb->m_initialCWnd = 10;
    s.tcb->m_cWnd = 10 * kSeg;
    s.tcb->m_maxPacingRate = DataRate("4Gb/s");
    s.tcb->m_pacing = false;
    s.av->Init(s.tcb);
    tcpav_init(&s.ref, 10, 1000000, 0, 0);
    CHECK(s.tcb->m_pacing, "Init with a target turns pacing on (SK_PACING_NEEDED)");
    CHECK(s.av->GetTargetBps() == 8000000, "TargetRate 8Mb/s is T = 8000000 bit/s (%llu)",
          (unsigned long long)s.av->GetTargetBps());

    for (unsigned i = 1; i <= n; i++)
        Simulator::Schedule(MicroSeconds(2317ull * i), &Step, &s, i);
    Simulator::Run();
    Simulator::Destroy();

    CHECK(s.acks == n, "all %u scripted ACKs ran (%u)", n, s.acks);
    CHECK(s.fieldErrors == 0, "every ACK's tcpav_ack as the script derives it (%u differ, first: %s)",
          s.fieldErrors, s.firstField ? s.firstField : "none");
    CHECK(s.cwndErrors == 0, "cWnd is the law's window in bytes on every ACK (%u differ)", s.cwndErrors);
    CHECK(s.pacingErrors == 0, "pacing rate and status are the law's on every ACK (%u differ)", s.pacingErrors);
    CHECK(s.ssthreshGot == s.ssthreshWant && s.ssthreshGot > 0,
          "GetSsThresh is the law's loss event, in bytes (%u, want %u)", s.ssthreshGot, s.ssthreshWant);
    CHECK(s.cwndAfterTimeout == 3, "after a timeout the window rebuilds from ns-3's one segment: 1 + 2 acked = %u",
          s.cwndAfterTimeout);
    CHECK(s.av->State().rounds > 20 && s.av->State().rounds == s.ref.rounds,
          "the law counted the same %u rounds as core.h on the script (%u)", s.av->State().rounds, s.ref.rounds);
    CHECK(s.av->State().target_Bps == 1000000 && s.av->State().g_wnd > 0,
          "T = 1 MB/s reached the law; G = %u packets", s.av->State().g_wnd);
    CHECK(std::memcmp(&s.av->State(), &s.ref, sizeof(s.ref)) == 0, "the law's state equals core.h's on the script");
}

// A timeout during a recovery (ns-3 asks GetSsThresh again) is not a second
// loss event: Linux's tcp_enter_loss reduces ssthresh once a window
static void TestTimeoutInRecovery()
{
    Ptr<TcpAv> av = CreateObject<TcpAv>();
    Ptr<TcpSocketState> tcb = CreateObject<TcpSocketState>();

    av->SetAttribute("TargetRate", DataRateValue(DataRate("8Mb/s")));
    tcb->m_segmentSize = kSeg;
    tcb->m_initialCWnd = 10;
    tcb->m_cWnd = 10 * kSeg;
    av->Init(tcb);
    // ns-3 3.37's EnterRecovery: the state first, then GetSsThresh
    tcb->m_congState = TcpSocketState::CA_RECOVERY;
    av->CongestionStateSet(tcb, TcpSocketState::CA_RECOVERY);
    uint32_t first = av->GetSsThresh(tcb, 10 * kSeg);
    uint16_t events = av->State().loss_events;
    uint32_t e = av->State().e_wnd;
    CHECK(events == 1 && first == e * kSeg, "entering recovery is a loss event: %u event(s), ssthresh %u = E %u x mss",
          events, first, e);
    // ReTxTimeout in recovery: GetSsThresh before the state changes to Loss
    tcb->m_ssThresh = first;
    uint32_t again = av->GetSsThresh(tcb, 10 * kSeg);
    CHECK(again == first && av->State().loss_events == events && av->State().e_wnd == e,
          "a timeout in recovery keeps ssthresh %u (%u), the events %u (%u) and E %u (%u)", first, again, events,
          av->State().loss_events, e, av->State().e_wnd);
    // the next recovery is a loss event again
    tcb->m_congState = TcpSocketState::CA_OPEN;
    av->CongestionStateSet(tcb, TcpSocketState::CA_OPEN);
    tcb->m_congState = TcpSocketState::CA_RECOVERY;
    av->CongestionStateSet(tcb, TcpSocketState::CA_RECOVERY);
    av->GetSsThresh(tcb, 10 * kSeg);
    CHECK(av->State().loss_events == events + 1, "a later recovery is a loss event again (%u events)",
          av->State().loss_events);
}

// The watch itself: Watch finds the socket's Rx trace, CongControl then
// takes losses from the socket's transmit buffer (none lost there, so an
// ACK that ns-3 reports with a changed lost count shows no loss), Init
// keeps the watch, and a fork (another socket's) falls back to ns-3's count
static void TestWatch()
{
    Ptr<TcpAv> av = CreateObject<TcpAv>();
    Ptr<TcpSocketState> tcb = CreateObject<TcpSocketState>();
    Ptr<TcpSocketBase> socket = CreateObject<TcpSocketBase>();
    TcpRateOps::TcpRateConnection rc;
    TcpRateOps::TcpRateSample rs;

    av->SetAttribute("TargetRate", DataRateValue(DataRate("8Mb/s")));
    tcb->m_segmentSize = kSeg;
    tcb->m_initialCWnd = 10;
    tcb->m_cWnd = 10 * kSeg;
    rs.m_bytesLoss = kSeg; // ns-3's |change|: a repair looks like this too
    rs.m_ackedSacked = kSeg;

    Ptr<TcpAv> plain = CreateObject<TcpAv>();
    plain->Init(tcb);
    plain->CongControl(tcb, rc, rs);
    CHECK(plain->LastAck().losses == 1 && !plain->GetBinding().lostWatched,
          "unwatched: losses %u from ns-3's count (want 1)", plain->LastAck().losses);

    CHECK(av->Watch(socket), "Watch finds the socket's Rx trace");
    av->Init(tcb); // as the socket calls it, after the application's Watch
    av->CongControl(tcb, rc, rs);
    CHECK(av->GetBinding().lostWatched && av->LastAck().losses == 0,
          "watched, after Init: losses %u from the transmit buffer, none lost there (want 0)",
          av->LastAck().losses);

    Ptr<TcpAv> fork = DynamicCast<TcpAv>(av->Fork());
    fork->CongControl(tcb, rc, rs);
    CHECK(fork && !fork->GetBinding().lostWatched && fork->LastAck().losses == 1,
          "a fork is not watched: losses %u from ns-3's count (want 1)", fork ? fork->LastAck().losses : 0);
}

int main()
{
    TestAckOf();
    TestTimeoutInRecovery();
    TestWatch();
    TestScript();
    return check_done();
}
