// SPDX-License-Identifier: GPL-2.0
/*
 * wifi-avr.cc - the AVR-NRT study's scenario on ns-3's 802.11 MAC: a wired
 * host per station behind an 802.11g access point, N stations in one BSS,
 * one target flow (a video source at mean rate T) and N - 1 bulk
 * competitors, downlink or uplink. Prints one self-describing JSON record:
 * the parameters, every ns-3 setting that departs from a default which
 * would distort the result, and per-flow goodput, AVR, RTT and frame
 * latency. experiments/avr-nrt runs it over a sweep; wifi-avr(1) lists
 * the options.
 *
 * Why one wired host per station, not one server: each has its own link to
 * the AP, so --wan-delay and --sta-delay give every flow its own RTT (the
 * one place RTT diversity can be tested); the links run at 1 Gbit/s, so
 * the Wi-Fi medium stays the only bottleneck.
 */
#include "tcp-av.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include "ns3/wifi-module.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <getopt.h>
#include <unistd.h>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
#include "tcpav/frame_schedule.h"
#include "tcpav/json.h"
#include "tcpav/metrics.h"
#include "tcpav/tcpav.h"
}

using namespace ns3;

namespace
{

const uint32_t kSegment = 1448;    // Linux's MSS on a 1500-byte MTU with timestamps
const uint32_t kSndBuf = 4194304;  // Linux's tcp_wmem max (autotuning reaches it)
                                   // (--sndbuf: less, so that a drain ends)
const uint32_t kRcvBuf = 6291456;  // Linux's tcp_rmem max
const uint8_t kTosAf41 = 34 << 2;  // DSCP AF41: UP 4, AC_VI (precedence and RFC 8325)
const uint16_t kPortBase = 5001;
const unsigned kFlowsMax = 32;
// the target's frames of the window count as delivered when they arrive by
// the window's end plus this (the sources run on for it): a frame made at
// the window's last instant cannot arrive within it, and a video client
// plays with a buffer of about this much
const double kTailS = 1.0;

struct Options
{
    std::string direction{"down"};
    unsigned flows{5};
    uint64_t targetBps{0};
    std::string cc{"tcp_av"};
    std::string competitors{"linuxreno"};
    double duration{20};
    double warmup{2};
    double drain{0};
    unsigned seed{1};
    unsigned run{1};
    double wanDelayMs{1};
    std::vector<double> staDelayMs;
    std::vector<std::string> staRate;
    std::string apQdisc{"fifo"};
    std::string staQdisc{"fqcodel"};
    unsigned apQueue{100};
    unsigned sndBuf{kSndBuf};
    bool wmm{false};
    bool ackMarked{false};
    bool saturate{false};
    unsigned fps{30};
    unsigned gop{15};
    unsigned iRatioPct{500};
    std::string pcapDir;
    std::string tracePath; // --trace: the target's law, a CSV line a round
};

[[noreturn]] void
Fail(const std::string& what)
{
    std::fprintf(stderr, "wifi-avr: %s\n", what.c_str());
    std::exit(2);
}

void
Usage(FILE* f)
{
    std::fprintf(
        f,
        "usage: wifi-avr --target RATE [options]\n"
        "  one run of the AVR-NRT scenario on ns-3's 802.11g MAC; prints one JSON record\n"
        "  --direction down|up     target and competitors from the wired hosts to the\n"
        "                          stations (down, default) or back (up)\n"
        "  --flows N               flows in all, one per station: 1 target + N-1 bulk\n"
        "                          competitors (default 5, 1..%u)\n"
        "  --target RATE           T, the target flow's mean rate (iperf3 units: 10M)\n"
        "  --cc NAME               the target flow's congestion control: tcp_av,\n"
        "                          linuxreno, newreno, cubic, bbr (default tcp_av)\n"
        "  --competitors NAME      the competitors' (default linuxreno)\n"
        "  --saturate              every flow bulk with the competitors' CC: measures EB\n"
        "  --duration S            seconds of traffic (default 20)\n"
        "  --warmup S              seconds left out of every figure (default 2)\n"
        "  --drain S               seconds simulated after the sources stop and close\n"
        "                          their sockets (default 0); with a target they stop\n"
        "                          1 s after --duration: the target's frames of the\n"
        "                          window count as delivered when they arrive by then\n"
        "  --seed N, --run N       ns-3's RNG seed and run (default 1, 1)\n"
        "  --wan-delay MS          one-way delay of each wired link (default 1)\n"
        "  --sta-delay LIST        extra one-way delay per station, ms, comma-separated\n"
        "                          (station 1 carries the target; missing ones: 0)\n"
        "  --sta-rate LIST         802.11g data rate per station, Mbit/s (default 54 each:\n"
        "                          6 9 12 18 24 36 48 54), for the station's own frames\n"
        "  --ap-qdisc fifo|fqcodel fifo: drop-tail MAC queue, no queue disc (default);\n"
        "                          fqcodel: ns-3's default FqCoDel on the AP\n"
        "  --ap-queue PKTS         Wi-Fi MAC queue per access category (default 100)\n"
        "  --sta-qdisc fqcodel|fifo  the stations' queueing: ns-3's FqCoDel in front of\n"
        "                          the MAC queue, as a Linux client's fq_codel (default),\n"
        "                          or none (drop-tail MAC queue)\n"
        "  --wmm                   802.11e EDCA; the target flow carries DSCP AF41 (AC_VI)\n"
        "  --ack-marked            with --wmm, the target's receiver marks its ACKs AF41\n"
        "  --fps N, --gop N, --i-ratio R   the video: frames/s (30), frames per group\n"
        "                          (15), I-frame size over P-frame size (5)\n"
        "  --sndbuf BYTES          every TCP send buffer (default 4194304, Linux's\n"
        "                          tcp_wmem maximum; with --drain, less drains sooner)\n"
        "  --pcap DIR              radiotap capture at the AP: DIR/ap-*.pcap\n"
        "  --trace FILE            with --cc tcp_av, the target's law at the end of\n"
        "                          every round it counts, as CSV (see wifi-avr(1))\n"
        "  --help\n",
        kFlowsMax);
}

double
ParseNumber(const char* flag, const char* text, double min, double max)
{
    char* end = nullptr;
    errno = 0;
    double v = std::strtod(text, &end);
    if (!*text || *end || errno || !(v >= min && v <= max))
    {
        char range[64];
        std::snprintf(range, sizeof(range), "%g to %g", min, max);
        Fail(std::string(flag) + ": '" + text + "' is not a number from " + range);
    }
    return v;
}

unsigned
ParseUint(const char* flag, const char* text, unsigned min, unsigned max)
{
    unsigned v = 0;
    if (fs_parse_uint(text, min, max, &v) != 0)
        Fail(std::string(flag) + ": '" + text + "' is not a whole number from " + std::to_string(min) +
             " to " + std::to_string(max));
    return v;
}

std::vector<std::string>
SplitList(const char* text)
{
    std::vector<std::string> out;
    std::string s(text), item;
    size_t start = 0;
    for (;;) {
        size_t comma = s.find(',', start);
        out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return out;
}

bool
KnownCc(const std::string& cc)
{
    return cc == "tcp_av" || cc == "linuxreno" || cc == "newreno" || cc == "cubic" || cc == "bbr";
}

const char*
ErpMode(const std::string& mbps)
{
    static const char* const modes[][2] = {{"6", "ErpOfdmRate6Mbps"},   {"9", "ErpOfdmRate9Mbps"},
                                           {"12", "ErpOfdmRate12Mbps"}, {"18", "ErpOfdmRate18Mbps"},
                                           {"24", "ErpOfdmRate24Mbps"}, {"36", "ErpOfdmRate36Mbps"},
                                           {"48", "ErpOfdmRate48Mbps"}, {"54", "ErpOfdmRate54Mbps"}};
    for (const auto& m : modes)
        if (mbps == m[0])
            return m[1];
    return nullptr;
}

Options
ParseOptions(int argc, char** argv)
{
    enum { O_DIRECTION = 256, O_FLOWS, O_TARGET, O_CC, O_COMPETITORS, O_SATURATE, O_DURATION, O_WARMUP,
           O_DRAIN, O_SEED, O_RUN, O_WAN_DELAY, O_STA_DELAY, O_STA_RATE, O_AP_QDISC, O_AP_QUEUE, O_WMM,
           O_ACK_MARKED, O_FPS, O_GOP, O_I_RATIO, O_PCAP, O_SNDBUF, O_STA_QDISC, O_TRACE, O_HELP };
    static const struct option longopts[] = {
        {"direction", required_argument, nullptr, O_DIRECTION}, {"flows", required_argument, nullptr, O_FLOWS},
        {"target", required_argument, nullptr, O_TARGET},       {"cc", required_argument, nullptr, O_CC},
        {"competitors", required_argument, nullptr, O_COMPETITORS},
        {"saturate", no_argument, nullptr, O_SATURATE},         {"duration", required_argument, nullptr, O_DURATION},
        {"warmup", required_argument, nullptr, O_WARMUP},       {"drain", required_argument, nullptr, O_DRAIN},
        {"seed", required_argument, nullptr, O_SEED},           {"run", required_argument, nullptr, O_RUN},
        {"wan-delay", required_argument, nullptr, O_WAN_DELAY}, {"sta-delay", required_argument, nullptr, O_STA_DELAY},
        {"sta-rate", required_argument, nullptr, O_STA_RATE},   {"ap-qdisc", required_argument, nullptr, O_AP_QDISC},
        {"ap-queue", required_argument, nullptr, O_AP_QUEUE},   {"wmm", no_argument, nullptr, O_WMM},
        {"ack-marked", no_argument, nullptr, O_ACK_MARKED},     {"fps", required_argument, nullptr, O_FPS},
        {"gop", required_argument, nullptr, O_GOP},             {"i-ratio", required_argument, nullptr, O_I_RATIO},
        {"pcap", required_argument, nullptr, O_PCAP},           {"sndbuf", required_argument, nullptr, O_SNDBUF},
        {"sta-qdisc", required_argument, nullptr, O_STA_QDISC}, {"trace", required_argument, nullptr, O_TRACE},
        {"help", no_argument, nullptr, O_HELP},
        {nullptr, 0, nullptr, 0}};
    Options o;
    bool haveTarget = false;
    int c;

    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, nullptr)) != -1) {
        switch (c) {
        case O_DIRECTION:
            o.direction = optarg;
            if (o.direction != "down" && o.direction != "up")
                Fail(std::string("--direction: '") + optarg + "' is neither down nor up");
            break;
        case O_FLOWS: o.flows = ParseUint("--flows", optarg, 1, kFlowsMax); break;
        case O_TARGET:
            if (tcpav_parse_rate(optarg, &o.targetBps) != 0 || o.targetBps == 0 || o.targetBps > 1000000000ull)
                Fail(std::string("--target: '") + optarg + "' is not a rate from 1 bit/s to 1G (e.g. 10M)");
            haveTarget = true;
            break;
        case O_CC:
            o.cc = optarg;
            if (!KnownCc(o.cc))
                Fail(std::string("--cc: unknown congestion control '") + optarg +
                     "' (tcp_av, linuxreno, newreno, cubic, bbr)");
            break;
        case O_COMPETITORS:
            o.competitors = optarg;
            if (!KnownCc(o.competitors) || o.competitors == "tcp_av")
                Fail(std::string("--competitors: unknown congestion control '") + optarg +
                     "' (linuxreno, newreno, cubic, bbr)");
            break;
        case O_SATURATE: o.saturate = true; break;
        case O_DURATION: o.duration = ParseNumber("--duration", optarg, 1, 3600); break;
        case O_WARMUP: o.warmup = ParseNumber("--warmup", optarg, 0, 3600); break;
        case O_DRAIN: o.drain = ParseNumber("--drain", optarg, 0, 60); break;
        case O_SEED: o.seed = ParseUint("--seed", optarg, 1, 0x7fffffff); break;
        case O_RUN: o.run = ParseUint("--run", optarg, 1, 0x7fffffff); break;
        case O_WAN_DELAY: o.wanDelayMs = ParseNumber("--wan-delay", optarg, 0, 10000); break;
        case O_STA_DELAY:
            o.staDelayMs.clear();
            for (const auto& item : SplitList(optarg))
                o.staDelayMs.push_back(ParseNumber("--sta-delay", item.c_str(), 0, 10000));
            break;
        case O_STA_RATE:
            o.staRate = SplitList(optarg);
            for (const auto& item : o.staRate)
                if (!ErpMode(item))
                    Fail("--sta-rate: '" + item + "' is not an 802.11g rate (6 9 12 18 24 36 48 54)");
            break;
        case O_AP_QDISC:
            o.apQdisc = optarg;
            if (o.apQdisc != "fifo" && o.apQdisc != "fqcodel")
                Fail(std::string("--ap-qdisc: '") + optarg + "' is neither fifo nor fqcodel");
            break;
        case O_STA_QDISC:
            o.staQdisc = optarg;
            if (o.staQdisc != "fifo" && o.staQdisc != "fqcodel")
                Fail(std::string("--sta-qdisc: '") + optarg + "' is neither fqcodel nor fifo");
            break;
        case O_AP_QUEUE: o.apQueue = ParseUint("--ap-queue", optarg, 1, 100000); break;
        case O_WMM: o.wmm = true; break;
        case O_ACK_MARKED: o.ackMarked = true; break;
        case O_FPS: o.fps = ParseUint("--fps", optarg, 1, FS_FPS_MAX); break;
        case O_GOP: o.gop = ParseUint("--gop", optarg, 1, FS_GOP_MAX); break;
        case O_I_RATIO: {
            uint64_t pct = 0;
            if (fs_parse_fixed(optarg, 2, FS_RATIO_MIN_PCT, FS_RATIO_MAX_PCT, &pct) != 0)
                Fail(std::string("--i-ratio: '") + optarg + "' is not a ratio from 1 to 100");
            o.iRatioPct = static_cast<unsigned>(pct);
            break;
        }
        case O_PCAP: o.pcapDir = optarg; break;
        case O_TRACE:
            o.tracePath = optarg;
            if (o.tracePath.empty())
                Fail("--trace: the file name is empty");
            break;
        case O_SNDBUF: o.sndBuf = ParseUint("--sndbuf", optarg, 16 * kSegment, 1u << 30); break;
        case O_HELP: Usage(stdout); std::exit(0);
        default:
            Fail(std::string("unknown or incomplete option '") + argv[optind - 1] + "' (see --help)");
        }
    }
    if (optind < argc)
        Fail(std::string("unexpected argument '") + argv[optind] + "' (see --help)");
    if (!haveTarget && !o.saturate)
        Fail("--target RATE is required (or --saturate)");
    if (o.warmup >= o.duration)
        Fail("--warmup must be shorter than --duration");
    if (o.staDelayMs.size() > o.flows)
        Fail("--sta-delay: " + std::to_string(o.staDelayMs.size()) + " delays for " + std::to_string(o.flows) +
             " stations");
    if (o.staRate.size() > o.flows)
        Fail("--sta-rate: " + std::to_string(o.staRate.size()) + " rates for " + std::to_string(o.flows) +
             " stations");
    if (!o.pcapDir.empty() && access(o.pcapDir.c_str(), W_OK | X_OK) != 0)
        Fail("--pcap: '" + o.pcapDir + "' is not a writable directory");
    if (!o.tracePath.empty() && (o.saturate || o.cc != "tcp_av"))
        Fail("--trace needs a target flow under --cc tcp_av (it traces tcp_av's law)");
    if (o.ackMarked && !o.wmm)
        Fail("--ack-marked needs --wmm (without EDCA a mark changes nothing)");
    if (!o.saturate) {
        frame_schedule s{o.targetBps, o.fps, o.gop, o.iRatioPct};
        if (const char* why = fs_invalid(&s))
            Fail(std::string("the video (--target, --fps, --gop, --i-ratio): ") + why);
    }
    return o;
}

// the sources run on for kTailS after the window when there is a target
double
Tail(const Options& o)
{
    return o.saturate ? 0 : kTailS;
}

Ptr<TcpCongestionOps>
MakeCc(const std::string& name, uint64_t targetBps)
{
    if (name == "tcp_av") {
        Ptr<TcpAv> av = CreateObject<TcpAv>();
        av->SetAttribute("TargetRate", DataRateValue(DataRate(targetBps)));
        return av;
    }
    if (name == "linuxreno")
        return CreateObject<TcpLinuxReno>();
    if (name == "newreno")
        return CreateObject<TcpNewReno>();
    if (name == "cubic")
        return CreateObject<TcpCubic>();
    return CreateObject<TcpBbr>();
}

// What a flow's receiver saw, and its sender's RTT.
struct FlowStats
{
    uint64_t txBytes{0};       // the sender's socket took
    uint64_t rxBytes{0};       // all of it
    uint64_t rxInWindow{0};    // received in [warmup, duration)
    double rttSumMs{0};
    uint64_t rttSamples{0};
    // the sender's loss episodes over the whole run, as ss counts them:
    // entries into Recovery (fast retransmit) and into Loss (a timeout)
    uint64_t recoveries{0}, timeouts{0};
    // the video (target flow): frames as generated, and their latency
    std::vector<uint64_t> frameEnd;    // cumulative byte offset of each frame's end
    std::vector<double> frameGenS;     // when it was generated
    size_t framesDone{0};
    std::vector<double> latencyMs;     // of frames generated inside the window
    Ptr<TcpAv> tcpAv;                  // the target's law, when it runs tcp_av
    uint64_t offeredInWindow{0};       // bytes generated inside the window
    // the window's own frames: their stream offsets [first, end), and what
    // the receiver had read by the window's end plus kTailS (bytes from
    // before the window, a backlog, are not the window's delivery)
    bool windowSeen{false};
    uint64_t windowFirst{0}, windowEnd{0};
    uint64_t rxAtWindowEnd{0};
};

// [start, end): half-open, as the kernel engine's window: a frame made at
// the end belongs to the next window
struct Window
{
    double start, end, tail;
    bool Contains(double t) const { return t >= start && t < end; }
};

// A sender: bulk (always data to send) or the video source (frames of
// frame_schedule.h at their times, sent as the socket takes them).
class Source : public Application
{
  public:
    Source(Address peer, Ptr<TcpCongestionOps> cc, uint8_t tos, const frame_schedule* video, FlowStats* stats,
           Window w)
        : m_peer(peer), m_cc(cc), m_tos(tos), m_stats(stats), m_window(w)
    {
        if (video) {
            m_video = *video;
            m_isVideo = true;
        }
    }

  private:
    void StartApplication() override
    {
        m_socket = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
        Ptr<TcpSocketBase> tcp = DynamicCast<TcpSocketBase>(m_socket);
        tcp->SetCongestionControlAlgorithm(m_cc);
        if (Ptr<TcpAv> av = DynamicCast<TcpAv>(m_cc))
            NS_ABORT_MSG_UNLESS(av->Watch(tcp), "tcp_av: the socket has no Rx trace to count losses from");
        tcp->TraceConnectWithoutContext("RTT", MakeCallback(&Source::OnRtt, this));
        tcp->TraceConnectWithoutContext("CongState", MakeCallback(&Source::OnCongState, this));
        if (m_tos)
            m_socket->SetIpTos(m_tos);
        m_socket->Bind();
        m_socket->Connect(m_peer);
        m_socket->SetConnectCallback(MakeCallback(&Source::Connected, this),
                                     MakeNullCallback<void, Ptr<Socket>>());
        m_socket->SetSendCallback(MakeCallback(&Source::Writable, this));
        m_running = true;
        m_t0 = Simulator::Now().GetSeconds();
        if (m_isVideo)
            NextFrame();
    }

    void StopApplication() override
    {
        // the source stops writing and closes: what the socket holds is
        // still sent, then its FIN
        m_running = false;
        m_frameEvent.Cancel();
        if (m_socket)
            m_socket->Close();
    }

    void OnRtt(Time, Time rtt)
    {
        if (m_window.Contains(Simulator::Now().GetSeconds()) && rtt.IsStrictlyPositive()) {
            m_stats->rttSumMs += rtt.GetSeconds() * 1e3;
            m_stats->rttSamples++;
        }
    }

    void OnCongState(TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to)
    {
        if (to == TcpSocketState::CA_RECOVERY && from != TcpSocketState::CA_RECOVERY)
            m_stats->recoveries++;
        if (to == TcpSocketState::CA_LOSS && from != TcpSocketState::CA_LOSS)
            m_stats->timeouts++;
    }

    void Connected(Ptr<Socket>)
    {
        // ns-3 3.37 forgets a TOS set before Connect (its data went out
        // unmarked): set it again on the connected socket
        if (m_tos)
            m_socket->SetIpTos(m_tos);
        m_connected = true;
        Send();
    }

    void Writable(Ptr<Socket>, uint32_t) { Send(); }

    void NextFrame()
    {
        if (!m_running)
            return;
        double now = Simulator::Now().GetSeconds();
        uint64_t bytes = fs_frame_bytes(&m_video, m_frame);
        m_generated += bytes;
        m_stats->frameEnd.push_back(m_generated);
        m_stats->frameGenS.push_back(now);
        if (m_window.Contains(now)) {
            if (!m_stats->windowSeen) {
                m_stats->windowSeen = true;
                m_stats->windowFirst = m_generated - bytes;
            }
            m_stats->windowEnd = m_generated;
            m_stats->offeredInWindow += bytes;
        }
        m_backlog += bytes;
        m_frame++;
        double next = m_t0 + fs_frame_time_ns(&m_video, m_frame) * 1e-9;
        m_frameEvent = Simulator::Schedule(Seconds(next) - Simulator::Now(), &Source::NextFrame, this);
        Send();
    }

    void Send()
    {
        if (!m_connected || !m_running)
            return;
        for (;;) {
            uint32_t room = m_socket->GetTxAvailable();
            uint64_t want = m_isVideo ? m_backlog : 64 * kSegment;
            uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(room, want));
            if (n == 0)
                return;
            int sent = m_socket->Send(Create<Packet>(n));
            if (sent <= 0)
                return;
            m_stats->txBytes += static_cast<uint64_t>(sent);
            if (m_isVideo)
                m_backlog -= static_cast<uint64_t>(sent);
        }
    }

    Address m_peer;
    Ptr<TcpCongestionOps> m_cc;
    uint8_t m_tos;
    FlowStats* m_stats;
    Window m_window;
    frame_schedule m_video{};
    bool m_isVideo{false};
    Ptr<Socket> m_socket;
    bool m_running{false}, m_connected{false};
    double m_t0{0};
    uint64_t m_frame{0}, m_generated{0}, m_backlog{0};
    EventId m_frameEvent;
};

// A receiver: counts what arrives, completes the video's frames.
class Sink : public Application
{
  public:
    Sink(uint16_t port, uint8_t ackTos, FlowStats* stats, Window w)
        : m_port(port), m_ackTos(ackTos), m_stats(stats), m_window(w)
    {
    }

  private:
    void StartApplication() override
    {
        m_listener = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
        if (m_ackTos)
            m_listener->SetIpTos(m_ackTos);
        m_listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port));
        m_listener->Listen();
        m_listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                      MakeCallback(&Sink::Accepted, this));
    }

    void StopApplication() override {}

    void Accepted(Ptr<Socket> s, const Address&)
    {
        // the accepted socket's ACKs carry the mark (IP_TOS after accept)
        if (m_ackTos)
            s->SetIpTos(m_ackTos);
        s->SetRecvCallback(MakeCallback(&Sink::Readable, this));
        m_conns.push_back(s);
    }

    void Readable(Ptr<Socket> s)
    {
        double now = Simulator::Now().GetSeconds();
        Ptr<Packet> p;
        while ((p = s->Recv()) && p->GetSize() > 0) {
            m_stats->rxBytes += p->GetSize();
            if (m_window.Contains(now))
                m_stats->rxInWindow += p->GetSize();
        }
        if (now <= m_window.end + m_window.tail)
            m_stats->rxAtWindowEnd = m_stats->rxBytes;
        auto& st = *m_stats;
        while (st.framesDone < st.frameEnd.size() && st.frameEnd[st.framesDone] <= st.rxBytes) {
            double gen = st.frameGenS[st.framesDone];
            if (m_window.Contains(gen))
                st.latencyMs.push_back((now - gen) * 1e3);
            st.framesDone++;
        }
    }

    uint16_t m_port;
    uint8_t m_ackTos;
    FlowStats* m_stats;
    Window m_window;
    Ptr<Socket> m_listener;
    std::vector<Ptr<Socket>> m_conns;
};

double
Percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return NAN;
    std::sort(v.begin(), v.end());
    size_t k = static_cast<size_t>(std::ceil(p * v.size()));
    return v[k ? k - 1 : 0];
}

void
SetDefaults(const Options& o)
{
    // ns-3 defaults that would distort the result, each set and recorded
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(kSegment));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(o.sndBuf));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(kRcvBuf));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    // Linux's TCP_DELACK_MIN: ns-3's 200 ms equals the 200 ms minimum RTO,
    // and a sender left with one segment in flight timed out on every one
    // (an RTO loop that held NewReno at 0.5 Mbit/s)
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(40)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    // Linux's initial RTO for the SYN (TCP_TIMEOUT_INIT, RFC 6298); ns-3
    // waits 3 s, and behind an AP queue full of ACKs a station whose SYN
    // was lost started seconds after the others
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketState::PaceInitialWindow", BooleanValue(false));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(TcpPrrRecovery::GetTypeId()));
    Config::SetDefault("ns3::WifiMacQueue::MaxSize",
                       QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, o.apQueue)));
    Config::SetDefault("ns3::WifiMacQueue::MaxDelay", TimeValue(Seconds(10)));
}

void
WriteSettings(tcpav_json* j, const Options& o)
{
    tcpav_json_object_begin(j, "ns3_settings");
    tcpav_json_u64(j, "tcp_segment_size", kSegment);
    tcpav_json_u64(j, "tcp_snd_buf_bytes", o.sndBuf);
    tcpav_json_u64(j, "tcp_rcv_buf_bytes", kRcvBuf);
    tcpav_json_string(j, "tcp_buffers", "fixed (ns-3 has no autotuning): Linux's tcp_wmem/tcp_rmem maxima");
    tcpav_json_u64(j, "tcp_initial_cwnd", 10);
    tcpav_json_u64(j, "tcp_delack_count", 2);
    tcpav_json_fixed(j, "tcp_delack_timeout_s", 0.04, 3);
    tcpav_json_bool(j, "tcp_sack", true);
    tcpav_json_bool(j, "tcp_timestamps", true);
    tcpav_json_fixed(j, "tcp_min_rto_s", 0.2, 3);
    tcpav_json_fixed(j, "tcp_syn_rto_s", 1, 3);
    tcpav_json_string(j, "tcp_recovery", "ns3::TcpPrrRecovery");
    tcpav_json_string(j, "tcp_pacing",
                      "off, as Linux without fq; tcp_av paces itself once it has a target, BBR always");
    tcpav_json_string(j, "tcp_ecn", "off");
    tcpav_json_u64(j, "wifi_mac_queue_max_packets", o.apQueue);
    tcpav_json_fixed(j, "wifi_mac_queue_max_delay_s", 10, 3);
    tcpav_json_string(j, "wifi_mac_queue_scope", "the AP's and each station's, per access category");
    tcpav_json_string(j, "ap_queue_disc", o.apQdisc == "fifo" ? "none (drop-tail MAC queue)"
                                                               : "ns3::FqCoDelQueueDisc (ns-3 default)");
    tcpav_json_string(j, "station_queue_disc", o.staQdisc == "fifo" ? "none (drop-tail MAC queue)"
                                                                    : "ns3::FqCoDelQueueDisc (ns-3 default, as Linux)");
    tcpav_json_string(j, "wifi_standard", "802.11g");
    tcpav_json_string(j, "wifi_manager", "ns3::ConstantRateWifiManager");
    tcpav_json_string(j, "wifi_control_mode", "ErpOfdmRate24Mbps");
    tcpav_json_bool(j, "wifi_qos", o.wmm);
    tcpav_json_string(j, "wired_links", "1 Gbit/s point-to-point, one per station's host");
    tcpav_json_object_end(j);
}

} // namespace

int
main(int argc, char** argv)
{
    const Options o = ParseOptions(argc, argv);
    const unsigned n = o.flows;
    const bool down = o.direction == "down";
    const Window window{o.warmup, o.duration, Tail(o)};

    RngSeedManager::SetSeed(o.seed);
    RngSeedManager::SetRun(o.run);
    SetDefaults(o);
    // opened before the run, so a bad path fails before minutes of simulation
    FILE* trace = nullptr;
    if (!o.tracePath.empty()) {
        trace = std::fopen(o.tracePath.c_str(), "w");
        if (!trace)
            Fail("--trace: cannot write '" + o.tracePath + "': " + std::strerror(errno));
        std::fputs("time_s,round,delivered,e_wnd,e_ssthresh,g_wnd,cwnd,gain,flags,infeasible,rate_bps,"
                   "srtt_ms,min_rtt_ms,below_rounds,lossy_rounds,loss_events,timeouts,ca_state\n",
                   trace);
    }

    NodeContainer ap, stations, hosts;
    ap.Create(1);
    stations.Create(n);
    hosts.Create(n);

    // 802.11g: ERP-OFDM at 54 Mbit/s (or --sta-rate), one BSS, all in range
    YansWifiChannelHelper channel = YansWifiChannelHelper::Default();
    YansWifiPhyHelper phy;
    phy.SetChannel(channel.Create());
    phy.SetPcapDataLinkType(WifiPhyHelper::DLT_IEEE802_11_RADIO);
    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211g);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager", "DataMode", StringValue("ErpOfdmRate54Mbps"),
                                 "ControlMode", StringValue("ErpOfdmRate24Mbps"));
    WifiMacHelper mac;
    Ssid ssid("tcpav");
    NetDeviceContainer staDevs;
    for (unsigned i = 0; i < n; i++) {
        const char* mode = i < o.staRate.size() ? ErpMode(o.staRate[i]) : "ErpOfdmRate54Mbps";
        wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager", "DataMode", StringValue(mode),
                                     "ControlMode", StringValue("ErpOfdmRate24Mbps"));
        mac.SetType("ns3::StaWifiMac", "Ssid", SsidValue(ssid), "QosSupported", BooleanValue(o.wmm),
                    "ActiveProbing", BooleanValue(false));
        staDevs.Add(wifi.Install(phy, mac, stations.Get(i)));
    }
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager", "DataMode", StringValue("ErpOfdmRate54Mbps"),
                                 "ControlMode", StringValue("ErpOfdmRate24Mbps"));
    mac.SetType("ns3::ApWifiMac", "Ssid", SsidValue(ssid), "QosSupported", BooleanValue(o.wmm));
    NetDeviceContainer apDev = wifi.Install(phy, mac, ap.Get(0));

    MobilityHelper mobility;
    Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
    pos->Add(Vector(0, 0, 0));
    for (unsigned i = 0; i < n; i++) {
        double a = 2 * M_PI * i / n;
        pos->Add(Vector(5 * std::cos(a), 5 * std::sin(a), 0));
    }
    mobility.SetPositionAllocator(pos);
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.Install(ap);
    mobility.Install(stations);

    InternetStackHelper internet;
    internet.Install(ap);
    internet.Install(stations);
    internet.Install(hosts);

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.0");
    Ipv4InterfaceContainer apIf = addr.Assign(apDev);
    Ipv4InterfaceContainer staIf = addr.Assign(staDevs);
    std::vector<Ipv4Address> hostAddr(n);
    NetDeviceContainer wired;
    for (unsigned i = 0; i < n; i++) {
        PointToPointHelper p2p;
        double ms = o.wanDelayMs + (i < o.staDelayMs.size() ? o.staDelayMs[i] : 0);
        p2p.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
        p2p.SetChannelAttribute("Delay", TimeValue(MicroSeconds(static_cast<uint64_t>(ms * 1000))));
        NetDeviceContainer link = p2p.Install(hosts.Get(i), ap.Get(0));
        wired.Add(link);
        std::string base = "10.1." + std::to_string(i + 1) + ".0";
        addr.SetBase(base.c_str(), "255.255.255.0");
        hostAddr[i] = addr.Assign(link).GetAddress(0);
    }
    // queue discs: Ipv4AddressHelper installed ns-3's default (FqCoDel) on
    // every device; the AP keeps it only with --ap-qdisc fqcodel
    TrafficControlHelper tc;
    if (o.apQdisc == "fifo")
        tc.Uninstall(apDev);
    // a Linux client keeps fq_codel in front of its Wi-Fi queue (and TCP
    // small queues, which ns-3 lacks): without a queue disc, a station's own
    // sender overflows its 100-packet MAC queue and loses its own packets
    if (o.staQdisc == "fifo")
        tc.Uninstall(staDevs);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    std::vector<FlowStats> stats(n);
    std::vector<std::string> dstAddr(n); // "ADDR:PORT" of each flow's receiver, as avmon prints it
    frame_schedule video{o.targetBps, o.fps, o.gop, o.iRatioPct};
    Ptr<UniformRandomVariable> jitter = CreateObject<UniformRandomVariable>();
    for (unsigned i = 0; i < n; i++) {
        bool target = i == 0 && !o.saturate;
        Ptr<Node> from = down ? hosts.Get(i) : stations.Get(i);
        Ptr<Node> to = down ? stations.Get(i) : hosts.Get(i);
        Ipv4Address toAddr = down ? staIf.GetAddress(i) : hostAddr[i];
        uint16_t port = kPortBase + i;
        uint8_t tos = target && o.wmm ? kTosAf41 : 0;
        uint8_t ackTos = target && o.ackMarked ? kTosAf41 : 0;
        std::ostringstream where;
        toAddr.Print(where);
        dstAddr[i] = where.str() + ":" + std::to_string(port);
        Ptr<Sink> sink = Create<Sink>(port, ackTos, &stats[i], window);
        to->AddApplication(sink);
        sink->SetStartTime(Seconds(0));
        Ptr<TcpCongestionOps> cc = MakeCc(target ? o.cc : o.competitors, o.targetBps);
        stats[i].tcpAv = DynamicCast<TcpAv>(cc);
        if (target && trace && stats[i].tcpAv)
            stats[i].tcpAv->SetRoundCallback(
                [trace](const tcpav_state& st, const tcpav_ack& a, const tcpav_out& out, const TcpAv::Binding& b,
                        TcpSocketState::TcpCongState_t ca) {
                    std::fprintf(trace, "%.6f,%u,%u,%u,%u,%u,%u,%.3f,0x%04x,%u,%llu,%.3f,%.3f,%u,%u,%u,%u,%s\n",
                                 a.now_us / 1e6, st.rounds, a.delivered, st.e_wnd,
                                 st.e_ssthresh == TCPAV_SSTHRESH_INF ? 0u : st.e_ssthresh, st.g_wnd, out.cwnd,
                                 st.gain / static_cast<double>(TCPAV_GAIN_UNIT), st.flags,
                                 (st.flags & TCPAV_S_INFEASIBLE) ? 1u : 0u,
                                 static_cast<unsigned long long>(st.rate_Bps * 8), a.srtt_us / 1e3,
                                 a.min_rtt_us / 1e3, st.below_rounds, st.lossy_rounds, st.loss_events, b.timeouts,
                                 TcpSocketState::TcpCongStateName[ca]);
                });
        Ptr<Source> src = Create<Source>(InetSocketAddress(toAddr, port), cc, tos,
                                         target ? &video : nullptr, &stats[i], window);
        from->AddApplication(src);
        // all start within the first 0.1-0.2 s, in a per-seed order
        src->SetStartTime(Seconds(0.1 + jitter->GetValue(0, 0.1)));
        src->SetStopTime(Seconds(o.duration + Tail(o)));
    }

    if (!o.pcapDir.empty())
        phy.EnablePcap(o.pcapDir + "/ap", apDev.Get(0), true);

    Simulator::Stop(Seconds(o.duration + Tail(o) + o.drain));
    Simulator::Run();
    // a write that failed mid-run sets the stream's error; fclose reports the last flush
    if (trace && (std::ferror(trace) | std::fclose(trace)) != 0)
        Fail("--trace: writing '" + o.tracePath + "' failed: " + std::strerror(errno));

    // --- the record
    const double span = o.duration - o.warmup;
    tcpav_json j;
    tcpav_json_init(&j, stdout);
    tcpav_json_object_begin(&j, nullptr);
    tcpav_json_string(&j, "engine", "ns3");
    tcpav_json_string(&j, "tool", "wifi-avr");
    tcpav_json_string(&j, "tcpav_version", TCPAV_VERSION);
    tcpav_json_string(&j, "ns3_version", "3.37");
    char date[32];
    time_t now = time(nullptr);
    strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    tcpav_json_string(&j, "date", date);
    tcpav_json_object_begin(&j, "parameters");
    tcpav_json_string(&j, "direction", o.direction.c_str());
    tcpav_json_u64(&j, "flows", n);
    tcpav_json_u64(&j, "target_bps", o.saturate ? 0 : o.targetBps);
    tcpav_json_string(&j, "cc", o.saturate ? o.competitors.c_str() : o.cc.c_str());
    tcpav_json_string(&j, "competitors", o.competitors.c_str());
    tcpav_json_bool(&j, "saturate", o.saturate);
    tcpav_json_number(&j, "duration_s", o.duration);
    tcpav_json_number(&j, "warmup_s", o.warmup);
    tcpav_json_number(&j, "tail_s", Tail(o));
    tcpav_json_number(&j, "drain_s", o.drain);
    tcpav_json_u64(&j, "seed", o.seed);
    tcpav_json_u64(&j, "run", o.run);
    tcpav_json_number(&j, "wan_delay_ms", o.wanDelayMs);
    tcpav_json_array_begin(&j, "sta_delay_ms");
    for (unsigned i = 0; i < n; i++)
        tcpav_json_number(&j, nullptr, i < o.staDelayMs.size() ? o.staDelayMs[i] : 0);
    tcpav_json_array_end(&j);
    tcpav_json_array_begin(&j, "sta_rate_mbps");
    for (unsigned i = 0; i < n; i++)
        tcpav_json_u64(&j, nullptr, i < o.staRate.size() ? std::strtoul(o.staRate[i].c_str(), nullptr, 10) : 54);
    tcpav_json_array_end(&j);
    tcpav_json_string(&j, "ap_qdisc", o.apQdisc.c_str());
    tcpav_json_string(&j, "sta_qdisc", o.staQdisc.c_str());
    tcpav_json_u64(&j, "ap_queue", o.apQueue);
    tcpav_json_u64(&j, "sndbuf", o.sndBuf);
    tcpav_json_bool(&j, "wmm", o.wmm);
    tcpav_json_bool(&j, "ack_marked", o.ackMarked);
    tcpav_json_string(&j, "target_dscp", o.wmm ? "AF41" : "CS0");
    tcpav_json_u64(&j, "fps", o.fps);
    tcpav_json_u64(&j, "gop", o.gop);
    tcpav_json_number(&j, "i_ratio", o.iRatioPct / 100.0);
    tcpav_json_string(&j, "pcap_dir", o.pcapDir.empty() ? nullptr : o.pcapDir.c_str());
    tcpav_json_string(&j, "trace", o.tracePath.empty() ? nullptr : o.tracePath.c_str());
    tcpav_json_object_end(&j);
    WriteSettings(&j, o);

    std::vector<double> competitors;
    double aggregate = 0;
    tcpav_json_array_begin(&j, "flows");
    for (unsigned i = 0; i < n; i++) {
        const FlowStats& s = stats[i];
        bool target = i == 0 && !o.saturate;
        // the target's goodput: its window's frames delivered by the
        // window's end plus kTailS, over the window (AVR at most 1); a
        // competitor's: all it read in the window
        double goodput = s.rxInWindow * 8.0 / span;
        if (target)
            goodput = (std::min(std::max(s.rxAtWindowEnd, s.windowFirst), s.windowEnd) - s.windowFirst) * 8.0 / span;
        aggregate += goodput;
        if (!target)
            competitors.push_back(goodput);
        tcpav_json_object_begin(&j, nullptr);
        tcpav_json_u64(&j, "station", i + 1);
        tcpav_json_string(&j, "role", target ? "target" : "competitor");
        tcpav_json_string(&j, "cc", target ? o.cc.c_str() : o.competitors.c_str());
        tcpav_json_string(&j, "src", down ? "wired" : "station");
        tcpav_json_string(&j, "dst_addr", dstAddr[i].c_str());
        tcpav_json_fixed(&j, "goodput_bps", goodput, 0);
        tcpav_json_u64(&j, "tx_bytes", s.txBytes);
        tcpav_json_u64(&j, "rx_bytes", s.rxBytes);
        tcpav_json_number(&j, "rtt_ms", s.rttSamples ? s.rttSumMs / s.rttSamples : NAN);
        tcpav_json_u64(&j, "recoveries", s.recoveries);
        tcpav_json_u64(&j, "timeouts", s.timeouts);
        if (target) {
            double offered = s.offeredInWindow * 8.0 / span;
            tcpav_json_u64(&j, "target_bps", o.targetBps);
            tcpav_json_fixed(&j, "offered_bps", offered, 0);
            tcpav_json_fixed(&j, "rx_in_window_bps", s.rxInWindow * 8.0 / span, 0);
            tcpav_json_fixed(&j, "avr", tcpav_avr(goodput, std::min<double>(o.targetBps, offered)), 4);
            size_t inWindow = 0, late = 0;
            std::vector<double> lat = s.latencyMs;
            for (size_t k = 0; k < s.frameGenS.size(); k++)
                if (window.Contains(s.frameGenS[k])) {
                    inWindow++;
                    if (k >= s.framesDone) { // never completed: its latency is at least this
                        late++;
                        lat.push_back((o.duration + Tail(o) + o.drain - s.frameGenS[k]) * 1e3);
                    }
                }
            tcpav_json_u64(&j, "frames", inWindow);
            tcpav_json_u64(&j, "frames_incomplete", late);
            tcpav_json_fixed(&j, "frame_latency_p50_ms", Percentile(lat, 0.50), 2);
            tcpav_json_fixed(&j, "frame_latency_p99_ms", Percentile(lat, 0.99), 2);
            if (s.tcpAv) {
                // the law's state at the end, as tcpavctl flows shows it
                const tcpav_state& st = s.tcpAv->State();
                tcpav_json_object_begin(&j, "tcp_av");
                tcpav_json_bool(&j, "infeasible", st.flags & TCPAV_S_INFEASIBLE);
                tcpav_json_u64(&j, "rounds", st.rounds);
                tcpav_json_u64(&j, "loss_events", st.loss_events);
                tcpav_json_number(&j, "gain", st.gain / 256.0);
                tcpav_json_u64(&j, "g_wnd", st.g_wnd);
                tcpav_json_u64(&j, "e_wnd", st.e_wnd);
                tcpav_json_u64(&j, "srtt_us", s.tcpAv->LastAck().srtt_us);
                tcpav_json_object_end(&j);
            }
        }
        tcpav_json_object_end(&j);
    }
    tcpav_json_array_end(&j);
    tcpav_json_object_begin(&j, "summary");
    tcpav_json_fixed(&j, "aggregate_bps", aggregate, 0);
    tcpav_json_fixed(&j, "competitors_bps", std::accumulate(competitors.begin(), competitors.end(), 0.0), 0);
    tcpav_json_fixed(&j, "jain_competitors", competitors.empty() ? NAN : tcpav_jain(competitors.data(), competitors.size()), 4);
    tcpav_json_object_end(&j);
    tcpav_json_object_end(&j);
    tcpav_json_end_line(&j);
    Simulator::Destroy();
    return 0;
}
