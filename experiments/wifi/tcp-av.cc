// SPDX-License-Identifier: GPL-2.0
/*
 * tcp-av.cc - the ns-3 binding of the tcp_av law (see tcp-av.h). Its
 * counterpart for Linux is tcpav/bpf/tcp_av.bpf.c; docs/design.md §3.9
 * sets the two side by side, field by field.
 */
#include "tcp-av.h"

#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpAv");
NS_OBJECT_ENSURE_REGISTERED(TcpAv);

TypeId
TcpAv::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpAv")
            .SetParent<TcpCongestionOps>()
            .SetGroupName("Internet")
            .AddConstructor<TcpAv>()
            .AddAttribute("TargetRate",
                          "T, the rate the flow is held at (0: a plain Reno flow)",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&TcpAv::m_targetRate),
                          MakeDataRateChecker());
    return tid;
}

TcpAv::TcpAv()
    : TcpCongestionOps()
{
}

TcpAv::TcpAv(const TcpAv& other)
    : TcpCongestionOps(other),
      m_targetRate(other.m_targetRate),
      m_state(other.m_state),
      m_lastAck(other.m_lastAck),
      m_binding(other.m_binding)
{
    // a fork serves another socket: the watch is not carried over
    m_binding.lostWatched = false;
}

bool
TcpAv::Watch(Ptr<TcpSocketBase> socket)
{
    if (!socket->TraceConnectWithoutContext("Rx", MakeCallback(&TcpAv::OnRx, this)))
        return false;
    m_txBuffer = socket->GetTxBuffer();
    m_binding.lostAtRx = m_txBuffer->GetLost();
    return true;
}

void
TcpAv::OnRx(Ptr<const Packet> p [[maybe_unused]],
            const TcpHeader& h [[maybe_unused]],
            Ptr<const TcpSocketBase> s [[maybe_unused]])
{
    m_binding.lostAtRx = m_txBuffer->GetLost();
}

std::string
TcpAv::GetName() const
{
    return "TcpAv";
}

// bytes to the law's packets of one segment: a part of a segment is a packet
static uint32_t
PacketsOf(uint64_t bytes, uint32_t seg)
{
    uint64_t p = (bytes + seg - 1) / seg;
    return p > std::numeric_limits<uint32_t>::max() ? std::numeric_limits<uint32_t>::max()
                                                    : static_cast<uint32_t>(p);
}

// a time in microseconds for the law's 32-bit fields, clamped as Linux's
// 28-bit RTT samples are; 0 for none (zero or negative)
static uint32_t
MicrosOf(const Time& t)
{
    if (!t.IsStrictlyPositive())
        return 0;
    uint64_t us = t.GetMicroSeconds();
    return us > 0x0fffffffu ? 0x0fffffffu : static_cast<uint32_t>(us);
}

tcpav_ack
TcpAv::AckOf(const TcpSocketState& tcb,
             const TcpRateOps::TcpRateConnection& rc,
             const TcpRateOps::TcpRateSample& rs,
             const Binding& b,
             uint64_t nowUs)
{
    const uint32_t seg = tcb.m_segmentSize ? tcb.m_segmentSize : 1;
    tcpav_ack a{};
    uint64_t maxPacing = tcb.m_maxPacingRate.GetBitRate() / 8;
    int32_t outstanding = tcb.m_highTxMark.Get() - tcb.m_lastAckedSeq;

    a.now_us = nowUs;
    a.max_pacing_Bps = maxPacing;
    // cumulative counts: whole segments of the bytes delivered (ns-3 counts
    // bytes), the same floor for both so that rounds end alike
    a.delivered = static_cast<uint32_t>(rc.m_delivered / seg);
    a.prior_delivered = rs.m_priorDelivered / seg;
    a.acked = PacketsOf(rs.m_ackedSacked, seg);
    // newly marked lost: the net rise of the watched socket's lost bytes,
    // else ns-3's |change|, which also counts a repair (see Watch)
    a.losses = b.lostWatched ? PacketsOf(b.lostNow > b.lostAtRx ? b.lostNow - b.lostAtRx : 0, seg)
                             : PacketsOf(rs.m_bytesLoss, seg);
    a.inflight = PacketsOf(rs.m_priorInFlight, seg);
    // ns-3 3.37's EstimateRtt sets m_lastRtt to the estimator's smoothed
    // value (RFC 6298's 1/8 gain, as Linux's srtt), not to the sample
    a.srtt_us = MicrosOf(tcb.m_lastRtt.Get());
    a.min_rtt_us = tcb.m_minRtt == Time::Max() ? 0 : static_cast<uint32_t>(tcb.m_minRtt.GetMicroSeconds());
    a.rtt_us = b.rttUs;
    a.mss = seg;
    // a packet is a segment's worth of bytes, so rates in bytes are exact
    a.pkt_bytes = seg;
    a.app_limited = rs.m_isAppLimited;
    // ns-3 keeps no chrono of what limits the sender: the scenario sizes
    // both buffers so that neither binds (and records them)
    a.window_limited = 0;
    a.in_recovery = tcb.m_congState == TcpSocketState::CA_CWR ||
                    tcb.m_congState == TcpSocketState::CA_RECOVERY;
    // sent and not acknowledged cumulatively (SACKed bytes are not visible
    // to a congestion control in ns-3: counted as undelivered)
    a.undelivered = outstanding > 0 ? PacketsOf(static_cast<uint64_t>(outstanding), seg) : 0;
    // what the law set last; after a timeout (CA_LOSS) the socket's own
    // window, as Linux's in-flight + 1 (ns-3 sets one segment). Recovery's
    // own changes to cWnd (PRR, classic) are not the law's: ignored, as
    // Linux runs no PRR for a cong_control
    a.cwnd = tcb.m_congState == TcpSocketState::CA_LOSS ? tcb.m_cWnd.Get() / seg : b.lawCwnd;
    return a;
}

void
TcpAv::Init(Ptr<TcpSocketState> tcb)
{
    m_binding = Binding{}; // the watch is the buffer pointer's, kept
    tcpav_init(&m_state,
               tcb->m_initialCWnd,
               m_targetRate.GetBitRate() / 8,
               Simulator::Now().GetMicroSeconds(),
               0);
    m_binding.lawCwnd = tcb->m_cWnd.Get() / (tcb->m_segmentSize ? tcb->m_segmentSize : 1);
    // as SK_PACING_NEEDED: the flow paces itself once it has a target
    tcb->m_pacing = m_targetRate.GetBitRate() > 0;
}

uint32_t
TcpAv::GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight [[maybe_unused]])
{
    // A timeout that interrupts a recovery is no second loss event: Linux's
    // tcp_enter_loss keeps the recovery's ssthresh there ("not yet made
    // inside this window"), where ns-3 3.37 asks again. ns-3 enters
    // recovery (CongestionStateSet) before it asks for the recovery's own
    // ssthresh, so the state alone cannot tell the two apart: the cut made
    // in this recovery can.
    if (tcb->m_congState == TcpSocketState::CA_RECOVERY && m_binding.recoveryCut)
        return tcb->m_ssThresh;
    m_binding.recoveryCut = tcb->m_congState == TcpSocketState::CA_RECOVERY;
    return tcpav_on_loss_event(&m_state, m_binding.delivered) * tcb->m_segmentSize;
}

void
TcpAv::IncreaseWindow(Ptr<TcpSocketState> tcb [[maybe_unused]],
                      uint32_t segmentsAcked [[maybe_unused]])
{
    // the law sets the window in CongControl, on every ACK
}

void
TcpAv::PktsAcked(Ptr<TcpSocketState> tcb [[maybe_unused]],
                 uint32_t segmentsAcked [[maybe_unused]],
                 const Time& rtt)
{
    if (!rtt.IsStrictlyPositive())
        return;
    uint32_t m = MicrosOf(rtt);
    m_binding.rttUs = m ? m : 1;
}

void
TcpAv::CongestionStateSet(Ptr<TcpSocketState> tcb [[maybe_unused]],
                          const TcpSocketState::TcpCongState_t newState)
{
    if (newState == TcpSocketState::CA_RECOVERY)
        m_binding.recoveryCut = false; // its cut comes next (GetSsThresh)
    if (newState == TcpSocketState::CA_LOSS) {
        tcpav_on_timeout(&m_state);
        m_binding.timeouts++;
    } else if (newState == TcpSocketState::CA_CWR)
        tcpav_on_ece(&m_state); // ns-3 enters CWR only on an ECN-Echo
}

void
TcpAv::CwndEvent(Ptr<TcpSocketState> tcb [[maybe_unused]], const TcpSocketState::TcpCAEvent_t event)
{
    if (event == TcpSocketState::CA_EVENT_TX_START)
        tcpav_on_restart(&m_state, Simulator::Now().GetMicroSeconds(), m_binding.delivered);
}

bool
TcpAv::HasCongControl() const
{
    return true;
}

void
TcpAv::CongControl(Ptr<TcpSocketState> tcb,
                   const TcpRateOps::TcpRateConnection& rc,
                   const TcpRateOps::TcpRateSample& rs)
{
    const uint32_t seg = tcb->m_segmentSize ? tcb->m_segmentSize : 1;
    tcpav_out out{};

    if (m_txBuffer) {
        m_binding.lostWatched = true;
        m_binding.lostNow = m_txBuffer->GetLost();
    }
    m_lastAck = AckOf(*tcb, rc, rs, m_binding, Simulator::Now().GetMicroSeconds());
    tcpav_on_ack(&m_state, &m_lastAck, &out);
    m_binding.rttUs = 0;
    m_binding.delivered = m_lastAck.delivered;
    m_binding.lawCwnd = out.cwnd;
    if (out.round_ended && m_onRound)
        m_onRound(m_state, m_lastAck, out, m_binding, tcb->m_congState);
    uint64_t bytes = static_cast<uint64_t>(out.cwnd) * seg;
    tcb->m_cWnd = bytes > std::numeric_limits<uint32_t>::max() ? std::numeric_limits<uint32_t>::max()
                                                               : static_cast<uint32_t>(bytes);
    tcb->m_cWndInfl = tcb->m_cWnd.Get();
    // always set, as the BPF program does; used only while pacing is on
    tcb->m_pacing = out.pacing_needed != 0;
    tcb->m_pacingRate = DataRate(out.pacing_Bps * 8);
}

Ptr<TcpCongestionOps>
TcpAv::Fork()
{
    return CopyObject<TcpAv>(this);
}

} // namespace ns3
