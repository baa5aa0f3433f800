// SPDX-License-Identifier: GPL-2.0
/* station.c - the station table and per-station counters (see station.h). */
#include <arpa/inet.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "station.h"


int station_table_init(struct station_table *t, size_t max_stations)
{
	memset(t, 0, sizeof(*t));
	if (max_stations < 2)
		return -1;
	return lru_table_init(&t->lru, max_stations, offsetof(struct station, key), sizeof(struct station_key));
}

void station_table_destroy(struct station_table *t)
{
	struct lru_link *e;

	while ((e = lru_table_pop_oldest(&t->lru)))
		free(e);
	lru_table_destroy(&t->lru);
}

static struct station *station_lookup(struct station_table *t, const struct station_key *key, double ts)
{
	struct lru_link *e = lru_table_recent_matching(&t->lru, key);
	uint64_t hash = 0;
	struct station *s;

	if (!e) {
		hash = lru_hash(key, sizeof(*key));
		e = lru_table_find(&t->lru, key, hash);
	}

	if (e) {
		s = (struct station *)e;
		if (ts > s->last_ts)
			s->last_ts = ts;
		return s;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	if (lru_table_full(&t->lru)) {
		free(lru_table_pop_oldest(&t->lru));
		t->evictions++;
	}
	s->key = *key;
	s->id = t->next_id++;
	s->first_ts = s->last_ts = ts;
	lru_table_insert(&t->lru, &s->link, hash);
	return s;
}

struct station *station_table_lookup_mac(struct station_table *t, const struct mac_addr *mac, double ts)
{
	struct station_key key;

	memset(&key, 0, sizeof(key));
	key.kind = STATION_BY_MAC;
	memcpy(key.addr, mac->b, 6);
	return station_lookup(t, &key, ts);
}

struct station *station_table_lookup_ip(struct station_table *t, uint8_t family, const uint8_t *addr, double ts)
{
	struct station_key key;

	memset(&key, 0, sizeof(key));
	key.kind = STATION_BY_IP;
	key.family = family;
	memcpy(key.addr, addr, family == 6 ? 16 : 4);
	return station_lookup(t, &key, ts);
}

bool ip_is_group(uint8_t family, const uint8_t *addr)
{
	if (family == 6)
		return addr[0] == 0xff;
	if ((addr[0] & 0xf0) == 0xe0)
		return true; /* 224.0.0.0/4 */
	return addr[0] == 255 && addr[1] == 255 && addr[2] == 255 && addr[3] == 255;
}

static void rates_count(struct station_rates *r, uint32_t rate_kbps)
{
	for (unsigned i = 0; i < STATION_RATE_SLOTS; i++) {
		if (r->slot[i].frames == 0) {
			r->slot[i].rate_kbps = rate_kbps;
			r->slot[i].frames = 1;
			return;
		}
		if (r->slot[i].rate_kbps == rate_kbps) {
			r->slot[i].frames++;
			return;
		}
	}
	r->other_frames++;
}

/* An ACK or BlockAck is the tail of the exchange whose frame already
 * counts SIFS + ACK (docs/design.md §2.8): its own airtime is not added again. */
uint32_t station_frame_airtime_us(const struct frame *f)
{
	const struct wlan_info *w = &f->wlan;

	if (w->type == WLAN_TYPE_CTRL && (w->subtype == WLAN_SUBTYPE_ACK || w->subtype == WLAN_SUBTYPE_BLOCK_ACK))
		return 0;
	return w->airtime_us;
}

void station_count_wlan_frame(struct station *ta, struct station *ra, const struct frame *f)
{
	const struct wlan_info *w = &f->wlan;
	const bool data = w->type == WLAN_TYPE_DATA;
	const bool rate_known = f->radio.present && f->radio.rate_kbps > 0;
	const uint32_t airtime = station_frame_airtime_us(f);

	if (ta) {
		ta->tx_frames++;
		ta->tx_bytes += f->wirelen;
		ta->tx_airtime_us += airtime;
		ta->retries += w->retry;
		ta->interval.frames++;
		ta->interval.airtime_us += airtime;
		if (f->radio.present && f->radio.has_signal) {
			ta->signal_dbm_sum += f->radio.signal_dbm;
			ta->signal_frames++;
		}
		if (rate_known)
			rates_count(&ta->tx_rates, f->radio.rate_kbps);
		if ((data && w->from_ds && !w->to_ds) ||
		    (w->type == WLAN_TYPE_MGMT &&
		     (w->subtype == WLAN_SUBTYPE_BEACON || w->subtype == WLAN_SUBTYPE_PROBE_RESP)))
			ta->is_ap = true;
	}
	if (ra) {
		ra->rx_frames++;
		ra->rx_bytes += f->wirelen;
		ra->rx_airtime_us += airtime;
		ra->interval.frames++;
		ra->interval.airtime_us += airtime;
		if (rate_known)
			rates_count(&ra->rx_rates, f->radio.rate_kbps);
		if (data && w->to_ds && !w->from_ds)
			ra->is_ap = true;
	}
	if (!data)
		return;
	if (!(w->subtype & WLAN_SUBTYPE_NO_BODY)) {
		if (ta) {
			ta->mac_payload_frames++;
			ta->interval.mac_payload_frames++;
		}
		if (ra) {
			ra->mac_payload_frames++;
			ra->interval.mac_payload_frames++;
		}
	}
	if (w->dir == WLAN_DIR_UP && ta) {
		ta->tx_data_frames++;
		ta->tx_data_bytes += f->wirelen;
		ta->tx_data_airtime_us += w->airtime_us;
		ta->tx_data_retries += w->retry;
		ta->interval.data_frames++;
		ta->interval.data_retries += w->retry;
	} else if (w->dir == WLAN_DIR_DOWN && ra) {
		ra->rx_data_frames++;
		ra->rx_data_bytes += f->wirelen;
		ra->rx_data_airtime_us += w->airtime_us;
		ra->rx_data_retries += w->retry;
		ra->interval.data_frames++;
		ra->interval.data_retries += w->retry;
	}
}

bool station_wlan_repeat(struct station *ta, const struct wlan_info *w)
{
	const uint8_t *ra = w->ra.b;
	const uint32_t ra_hash = (uint32_t)((ra[0] ^ ra[2] ^ ra[4]) << 8 | (ra[1] ^ ra[3] ^ ra[5]));
	const uint32_t sf = ra_hash << 16 | (uint32_t)(w->seq & 0x0fff) << 4 | (w->frag & 0x0f);

	if (w->retry) {
		for (unsigned i = 0; i < ta->recent_count; i++)
			if (ta->recent_seq[i] == sf)
				return true;
	}
	ta->recent_seq[ta->recent_next] = sf;
	ta->recent_next = (uint8_t)((ta->recent_next + 1) % STATION_RECENT_SEQ);
	if (ta->recent_count < STATION_RECENT_SEQ)
		ta->recent_count++;
	return false;
}

void station_count_tx(struct station *s, uint32_t bytes)
{
	if (!s)
		return;
	s->tx_frames++;
	s->tx_bytes += bytes;
	s->tx_data_frames++;
	s->tx_data_bytes += bytes;
	s->interval.frames++;
	s->interval.data_frames++;
}

void station_count_rx(struct station *s, uint32_t bytes)
{
	if (!s)
		return;
	s->rx_frames++;
	s->rx_bytes += bytes;
	s->rx_data_frames++;
	s->rx_data_bytes += bytes;
	s->interval.frames++;
	s->interval.data_frames++;
}

void station_count_transport(struct station *tx, struct station *rx, uint32_t payload, uint64_t goodput,
			     bool pure_tcp_ack)
{
	if (tx) {
		tx->tx_payload_bytes += payload;
		tx->tx_goodput_bytes += goodput;
		tx->uplink_tcp_acks += pure_tcp_ack;
		tx->interval.tx_payload_bytes += payload;
		tx->interval.tx_goodput_bytes += goodput;
	}
	if (rx) {
		rx->rx_payload_bytes += payload;
		rx->rx_goodput_bytes += goodput;
		rx->interval.rx_payload_bytes += payload;
		rx->interval.rx_goodput_bytes += goodput;
	}
}

void station_interval_reset(struct station *s)
{
	memset(&s->interval, 0, sizeof(s->interval));
}

void station_format(const struct station *s, char *buf, size_t len)
{
	const uint8_t *a = s->key.addr;

	if (s->key.kind == STATION_BY_MAC)
		snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", a[0], a[1], a[2], a[3], a[4], a[5]);
	else if (!inet_ntop(s->key.family == 6 ? AF_INET6 : AF_INET, a, buf, (socklen_t)len) && len)
		buf[0] = '\0';
}

double station_retry_ratio(const struct station *s)
{
	uint64_t frames = s->tx_data_frames + s->rx_data_frames;

	if (frames == 0)
		return NAN;
	return (double)(s->tx_data_retries + s->rx_data_retries) / (double)frames;
}
