// SPDX-License-Identifier: GPL-2.0
/*
 * tcp-av.h - tcp_av in ns-3: a TcpCongestionOps whose CongControl feeds
 * include/tcpav/core.h, the law the BPF program runs, verbatim.
 *
 * This file only binds the law to ns-3's TCP, as tcpav/bpf/tcp_av.bpf.c
 * binds it to Linux: it reads an ACK's facts from TcpSocketState and the
 * rate sample (bytes in ns-3, packets in the law: see TcpAv::AckOf and
 * docs/design.md §3.9), writes cWnd and the pacing rate, and takes the
 * target from the TargetRate attribute. Where ns-3 has no counterpart of a
 * Linux field the binding says what it uses instead.
 */
#ifndef TCPAV_NS3_TCP_AV_H
#define TCPAV_NS3_TCP_AV_H

#include "ns3/data-rate.h"
#include "ns3/tcp-congestion-ops.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-rate-ops.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/tcp-socket-state.h"
#include "ns3/tcp-tx-buffer.h"

#include <functional>

extern "C" {
#include "tcpav/core.h"
}

namespace ns3
{

class TcpAv : public TcpCongestionOps
{
  public:
    static TypeId GetTypeId();
    TcpAv();
    TcpAv(const TcpAv& other);

    std::string GetName() const override;
    void Init(Ptr<TcpSocketState> tcb) override;
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override;
    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override;
    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override;
    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t newState) override;
    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override;
    bool HasCongControl() const override;
    void CongControl(Ptr<TcpSocketState> tcb,
                     const TcpRateOps::TcpRateConnection& rc,
                     const TcpRateOps::TcpRateSample& rs) override;
    Ptr<TcpCongestionOps> Fork() override;

    /* Count losses nearer Linux's rs->losses, the bytes newly marked lost
     * on this ACK: ns-3 3.37 hands a congestion control only the absolute
     * change of its lost bytes, so an ACK that repairs a loss would count
     * as one. Watching the socket's transmit buffer from its Rx trace
     * (fired before the ACK is processed) gives the signed change: the net
     * rise, so an ACK that repairs one segment and marks k others lost
     * counts k - 1 (the law asks only whether a round had losses). The
     * socket must be the one this object is the congestion control of.
     * False if the socket has no Rx trace to watch. */
    bool Watch(Ptr<TcpSocketBase> socket);

    /* what the binding keeps beside the law's state (Linux keeps it in
     * tcp_sock): this ACK's RTT as PktsAcked passed it, the window the law
     * set last, the delivered count of the last ACK and, when the socket
     * is watched, its lost bytes before and after this ACK */
    struct Binding
    {
        uint32_t rttUs{0};       // PktsAcked's value on this ACK, 0 = none
        uint32_t lawCwnd{0};     // packets, what CongControl set last
        uint32_t delivered{0};   // packets, at the last ACK
        bool lostWatched{false}; // lostAtRx and lostNow are the socket's
        uint32_t lostAtRx{0};    // bytes lost before this ACK (Rx trace)
        uint32_t lostNow{0};     // bytes lost after it
        bool recoveryCut{false}; // this recovery's loss event was taken
        uint32_t timeouts{0};    // CA_LOSS entries (retransmission timeouts)
    };

    /* Called at the end of every round the law counts (tcpav_out's
     * round_ended), after the law ran on that ACK: a per-round trace
     * (wifi-avr --trace). */
    using RoundCallback = std::function<void(const tcpav_state&, const tcpav_ack&, const tcpav_out&,
                                             const Binding&, TcpSocketState::TcpCongState_t)>;
    void SetRoundCallback(RoundCallback cb) { m_onRound = std::move(cb); }

    /* The law's view of one ACK: pure, so tests/unit/test_ns3_adapter.cc
     * checks it field by field. */
    static tcpav_ack AckOf(const TcpSocketState& tcb,
                           const TcpRateOps::TcpRateConnection& rc,
                           const TcpRateOps::TcpRateSample& rs,
                           const Binding& b,
                           uint64_t nowUs);

    const tcpav_state& State() const { return m_state; }
    const tcpav_ack& LastAck() const { return m_lastAck; }
    const Binding& GetBinding() const { return m_binding; }
    uint64_t GetTargetBps() const { return m_targetRate.GetBitRate(); }

  private:
    void OnRx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase> s);

    DataRate m_targetRate{0}; // T (the attribute TargetRate)
    Ptr<TcpTxBuffer> m_txBuffer; // the watched socket's, or null
    tcpav_state m_state{};
    tcpav_ack m_lastAck{};
    Binding m_binding{};
    RoundCallback m_onRound;
};

} // namespace ns3

#endif
