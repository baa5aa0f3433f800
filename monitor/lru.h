/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lru.h - a bounded hash table with least-recently-used eviction, for the
 * flow and station tables (docs/design.md §4.6: memory bounded by a table cap).
 *
 * Entries are the caller's structs with a struct lru_link as their FIRST
 * member and a fixed-length key at a fixed offset; the table never
 * allocates or frees entries, it only links them. A lookup that hits moves
 * the entry to the "newest" end; when the table is full the caller pops the
 * oldest entry (and frees it) before inserting.
 */
#ifndef AVMON_LRU_H
#define AVMON_LRU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lru_link {
	struct lru_link *hash_next;
	struct lru_link *newer, *older;
	uint64_t hash;
};

struct lru_table {
	struct lru_link **buckets;
	size_t n_buckets;           /* a power of two */
	struct lru_link *newest, *oldest;
	size_t count, capacity;
	size_t key_offset, key_len; /* key bytes at (char *)link + key_offset */
};

/* 0, or -1 when out of memory. capacity must be >= 1. */
int lru_table_init(struct lru_table *t, size_t capacity, size_t key_offset, size_t key_len);

/* Frees the buckets only; pop every entry first to free the entries. */
void lru_table_destroy(struct lru_table *t);

uint64_t lru_hash(const void *key, size_t len);

/* The entry with this key (hash = lru_hash(key)), made the newest; or NULL. */
/* One of the two most recently used entries when its key is key (made the
 * newest), else NULL: consecutive packets of a flow, and the two stations
 * of a conversation, skip the hash. */
struct lru_link *lru_table_recent_matching(struct lru_table *t, const void *key);
struct lru_link *lru_table_find(struct lru_table *t, const void *key, uint64_t hash);

/* Makes e (in the table) the newest entry: for a caller that found it
 * without a key (flow.c compares the recent flows with the packet). */
void lru_table_touch(struct lru_table *t, struct lru_link *e);

/* Links e (key already filled in, not present yet) as the newest entry.
 * The caller makes room first: see lru_table_full(). */
void lru_table_insert(struct lru_table *t, struct lru_link *e, uint64_t hash);

/* Unlinks and returns the least recently used entry, or NULL if empty. */
struct lru_link *lru_table_pop_oldest(struct lru_table *t);

static inline bool lru_table_full(const struct lru_table *t)
{
	return t->count >= t->capacity;
}

#endif /* AVMON_LRU_H */
