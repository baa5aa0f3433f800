// SPDX-License-Identifier: GPL-2.0
/* lru.c - bounded hash table with LRU eviction (see lru.h). */
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "lru.h"

int lru_table_init(struct lru_table *t, size_t capacity, size_t key_offset, size_t key_len)
{
	size_t n = 16;

	memset(t, 0, sizeof(*t));
	if (capacity == 0)
		return -1;
	/* about one entry per bucket at the cap keeps chains short */
	while (n < capacity && n < ((size_t)1 << 30))
		n <<= 1;
	t->buckets = calloc(n, sizeof(*t->buckets));
	if (!t->buckets)
		return -1;
	t->n_buckets = n;
	t->capacity = capacity;
	t->key_offset = key_offset;
	t->key_len = key_len;
	return 0;
}

void lru_table_destroy(struct lru_table *t)
{
	free(t->buckets);
	memset(t, 0, sizeof(*t));
}

/* FNV-1a, then a 64-bit finalizer so that the low bits used for the bucket
 * index depend on every key byte. */
uint64_t lru_hash(const void *key, size_t len)
{
	/* eight bytes a round (a byte-wise FNV spent a quarter of avmon's
	 * time here), then a 64-bit finaliser */
	const uint8_t *p = key;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	if (len) {
		w = 0;
		memcpy(&w, p, len);
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
		h ^= h >> 32;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

/* Keys are a few dozen bytes: compared a word at a time, inline (a call
 * to memcmp per lookup cost avmon a sixth of its time). */
static inline bool keys_equal(const void *a, const void *b, size_t len)
{
	const uint8_t *p = a, *q = b;
	uint64_t x, y;

	for (; len >= 8; p += 8, q += 8, len -= 8) {
		memcpy(&x, p, 8);
		memcpy(&y, q, 8);
		if (x != y)
			return false;
	}
	for (; len; p++, q++, len--)
		if (*p != *q)
			return false;
	return true;
}

static const void *entry_key(const struct lru_table *t, const struct lru_link *e)
{
	return (const char *)e + t->key_offset;
}

static void recency_unlink(struct lru_table *t, struct lru_link *e)
{
	if (e->newer)
		e->newer->older = e->older;
	else
		t->newest = e->older;
	if (e->older)
		e->older->newer = e->newer;
	else
		t->oldest = e->newer;
	e->newer = e->older = NULL;
}

static void recency_push_newest(struct lru_table *t, struct lru_link *e)
{
	e->newer = NULL;
	e->older = t->newest;
	if (t->newest)
		t->newest->newer = e;
	t->newest = e;
	if (!t->oldest)
		t->oldest = e;
}

struct lru_link *lru_table_recent_matching(struct lru_table *t, const void *key)
{
	struct lru_link *e = t->newest;

	if (e && keys_equal(entry_key(t, e), key, t->key_len))
		return e;
	e = e ? e->older : NULL;
	if (e && keys_equal(entry_key(t, e), key, t->key_len)) {
		recency_unlink(t, e);
		recency_push_newest(t, e);
		return e;
	}
	return NULL;
}

void lru_table_touch(struct lru_table *t, struct lru_link *e)
{
	if (t->newest != e) {
		recency_unlink(t, e);
		recency_push_newest(t, e);
	}
}

struct lru_link *lru_table_find(struct lru_table *t, const void *key, uint64_t hash)
{
	struct lru_link *e = t->buckets[hash & (t->n_buckets - 1)];

	for (; e; e = e->hash_next) {
		if (e->hash == hash && keys_equal(entry_key(t, e), key, t->key_len)) {
			if (t->newest != e) {
				recency_unlink(t, e);
				recency_push_newest(t, e);
			}
			return e;
		}
	}
	return NULL;
}

void lru_table_insert(struct lru_table *t, struct lru_link *e, uint64_t hash)
{
	struct lru_link **b = &t->buckets[hash & (t->n_buckets - 1)];

	e->hash = hash;
	e->hash_next = *b;
	*b = e;
	recency_push_newest(t, e);
	t->count++;
}

struct lru_link *lru_table_pop_oldest(struct lru_table *t)
{
	struct lru_link *e = t->oldest, **pp;

	if (!e)
		return NULL;
	for (pp = &t->buckets[e->hash & (t->n_buckets - 1)]; *pp != e; pp = &(*pp)->hash_next)
		;
	*pp = e->hash_next;
	e->hash_next = NULL;
	recency_unlink(t, e);
	t->count--;
	return e;
}
