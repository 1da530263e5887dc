// SPDX-License-Identifier: MIT
/*
 * dxhash.c - directory index (htree) name hashes.
 *
 * Semantics follow the kernel's fs/ext4/hash.c (ext4fs_dirhash) and
 * Documentation/filesystems/ext4/directory.rst ("Hash Tree Directories"):
 *
 *   version  name                input words              result
 *   0 / 3    legacy (dx_hack)    bytes one at a time      hash, minor 0
 *   1 / 4    half_md4            32-byte chunks, 8 words  hash = buf[1], minor = buf[2]
 *   2 / 5    tea                 16-byte chunks, 4 words  hash = buf[0], minor = buf[1]
 *   6        siphash-2-4         whole name               hash = high 32, minor = low 32
 *
 * Versions 3..5 are the "unsigned" variants: name bytes are widened as
 * unsigned char instead of signed char.  The chaining buffer starts at the
 * seed, or at the MD4 initial values when the seed is all zero.  Input words
 * of a chunk are packed big-endian-ish from a padding word that encodes the
 * remaining length (see pack_words()).  Every result has its low bit
 * cleared (the htree continuation bit), and 0xfffffffe (EOF marker of
 * 32-bit readdir cookies) becomes 0xfffffffc.
 *
 * Casefolded directories hash the folded name (ek_dx_hash_name(),
 * lib/unicode.c); a name that does not fold hashes as its bytes.
 *
 * siphash (casefolded + encrypted directories) is keyed in the kernel with a
 * per-directory key derived from the encryption key, which an offline tool
 * does not have; here @seed supplies those 16 key bytes (little-endian
 * words), with no default substitution.  Such directories store each
 * entry's hash after its name, so reading them never needs this.
 */
#include <string.h>
#include "extkit.h"

#define HTREE_EOF_32BIT	0x7fffffffu

static const uint32_t default_seed[4] = {
	0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476
};

static inline uint32_t rol32(uint32_t x, unsigned s)
{
	return (x << s) | (x >> (32 - s));
}

/* byte @c of a name widened as signed or unsigned char */
static inline uint32_t widen(unsigned char c, bool is_unsigned)
{
	return is_unsigned ? (uint32_t)c : (uint32_t)(int32_t)(signed char)c;
}

/*
 * Fill @nwords input words from the next bytes of a name with @remain bytes
 * left.  Each word starts from a padding value (remain in every byte) and
 * shifts in up to four bytes: w = w << 8 + byte.  Words past the bytes
 * consumed are the padding value.
 */
static void pack_words(const unsigned char *p, size_t remain, uint32_t *out,
		       unsigned nwords, bool is_unsigned)
{
	uint32_t pad = (uint32_t)remain | ((uint32_t)remain << 8);
	size_t n = remain < nwords * 4u ? remain : nwords * 4u;
	unsigned w = 0;
	uint32_t acc;

	pad |= pad << 16;
	acc = pad;
	for (size_t i = 0; i < n; i++) {
		acc = widen(p[i], is_unsigned) + (acc << 8);
		if ((i & 3) == 3) {
			out[w++] = acc;
			acc = pad;
		}
	}
	if (w < nwords)
		out[w++] = acc;
	while (w < nwords)
		out[w++] = pad;
}

static uint32_t legacy_hash(const unsigned char *p, size_t len, bool is_unsigned)
{
	uint32_t h0 = 0x12a3fe2d, h1 = 0x37abe8f9;

	for (size_t i = 0; i < len; i++) {
		uint32_t h = h1 + (h0 ^ (widen(p[i], is_unsigned) * 7152373u));

		if (h & 0x80000000u)
			h -= 0x7fffffff;
		h1 = h0;
		h0 = h;
	}
	return h0 << 1;
}

/*
 * Three rounds of MD4 on 8 words (half of MD4's 16).  Each step is
 * a = rol(a + f(b, c, d) + in[k] + K, s), the roles of a..d rotating;
 * written out step by step, as the hash of every name a rebuild indexes
 * runs through it.
 */
#define MD4_F(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define MD4_G(x, y, z) (((x) & (y)) + (((x) ^ (y)) & (z)))
#define MD4_H(x, y, z) ((x) ^ (y) ^ (z))
#define MD4_STEP(f, a, b, c, d, x, s) ((a) = rol32((a) + f(b, c, d) + (x), s))
#define MD4_K2 0x5A827999u
#define MD4_K3 0x6ED9EBA1u

static void half_md4(uint32_t buf[4], const uint32_t in[8])
{
	uint32_t a = buf[0], b = buf[1], c = buf[2], d = buf[3];

	MD4_STEP(MD4_F, a, b, c, d, in[0], 3);
	MD4_STEP(MD4_F, d, a, b, c, in[1], 7);
	MD4_STEP(MD4_F, c, d, a, b, in[2], 11);
	MD4_STEP(MD4_F, b, c, d, a, in[3], 19);
	MD4_STEP(MD4_F, a, b, c, d, in[4], 3);
	MD4_STEP(MD4_F, d, a, b, c, in[5], 7);
	MD4_STEP(MD4_F, c, d, a, b, in[6], 11);
	MD4_STEP(MD4_F, b, c, d, a, in[7], 19);

	MD4_STEP(MD4_G, a, b, c, d, in[1] + MD4_K2, 3);
	MD4_STEP(MD4_G, d, a, b, c, in[3] + MD4_K2, 5);
	MD4_STEP(MD4_G, c, d, a, b, in[5] + MD4_K2, 9);
	MD4_STEP(MD4_G, b, c, d, a, in[7] + MD4_K2, 13);
	MD4_STEP(MD4_G, a, b, c, d, in[0] + MD4_K2, 3);
	MD4_STEP(MD4_G, d, a, b, c, in[2] + MD4_K2, 5);
	MD4_STEP(MD4_G, c, d, a, b, in[4] + MD4_K2, 9);
	MD4_STEP(MD4_G, b, c, d, a, in[6] + MD4_K2, 13);

	MD4_STEP(MD4_H, a, b, c, d, in[3] + MD4_K3, 3);
	MD4_STEP(MD4_H, d, a, b, c, in[7] + MD4_K3, 9);
	MD4_STEP(MD4_H, c, d, a, b, in[2] + MD4_K3, 11);
	MD4_STEP(MD4_H, b, c, d, a, in[6] + MD4_K3, 15);
	MD4_STEP(MD4_H, a, b, c, d, in[1] + MD4_K3, 3);
	MD4_STEP(MD4_H, d, a, b, c, in[5] + MD4_K3, 9);
	MD4_STEP(MD4_H, c, d, a, b, in[0] + MD4_K3, 11);
	MD4_STEP(MD4_H, b, c, d, a, in[4] + MD4_K3, 15);

	buf[0] += a;
	buf[1] += b;
	buf[2] += c;
	buf[3] += d;
}

/* 16 rounds of TEA with the 4 input words as key, Davies-Meyer chaining */
static void tea(uint32_t buf[4], const uint32_t in[4])
{
	uint32_t x = buf[0], y = buf[1], sum = 0;

	for (unsigned n = 0; n < 16; n++) {
		sum += 0x9E3779B9u;
		x += ((y << 4) + in[0]) ^ (y + sum) ^ ((y >> 5) + in[1]);
		y += ((x << 4) + in[2]) ^ (x + sum) ^ ((x >> 5) + in[3]);
	}
	buf[0] += x;
	buf[1] += y;
}

/* SipHash-2-4 (Aumasson, Bernstein 2012) of @len bytes with a 128-bit key */
#define SIPROUND(v0, v1, v2, v3) do {					\
	v0 += v1; v1 = rol64(v1, 13); v1 ^= v0; v0 = rol64(v0, 32);	\
	v2 += v3; v3 = rol64(v3, 16); v3 ^= v2;				\
	v0 += v3; v3 = rol64(v3, 21); v3 ^= v0;				\
	v2 += v1; v1 = rol64(v1, 17); v1 ^= v2; v2 = rol64(v2, 32);	\
} while (0)

static inline uint64_t rol64(uint64_t x, unsigned s)
{
	return (x << s) | (x >> (64 - s));
}

static uint64_t siphash24(const unsigned char *p, size_t len, uint64_t k0, uint64_t k1)
{
	uint64_t v0 = k0 ^ 0x736f6d6570736575ull, v1 = k1 ^ 0x646f72616e646f6dull;
	uint64_t v2 = k0 ^ 0x6c7967656e657261ull, v3 = k1 ^ 0x7465646279746573ull;
	uint64_t m;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		m = get_le64(p + i);
		v3 ^= m;
		SIPROUND(v0, v1, v2, v3);
		SIPROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	m = (uint64_t)len << 56;
	for (size_t j = 0; i + j < len; j++)
		m |= (uint64_t)p[i + j] << (8 * j);
	v3 ^= m;
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	v0 ^= m;
	v2 ^= 0xff;
	for (i = 0; i < 4; i++)
		SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

int ek_dx_hash(int version, const char *name, size_t len, const uint32_t seed[4],
	       uint32_t *hash, uint32_t *minor_hash)
{
	const unsigned char *p = (const unsigned char *)name;
	bool is_unsigned = version >= EXT4_HASH_LEGACY_UNSIGNED &&
			   version <= EXT4_HASH_TEA_UNSIGNED;
	uint32_t buf[4], in[8];
	uint32_t h, minor = 0;

	if (len && !name)
		return -EINVAL;
	memcpy(buf, default_seed, sizeof(buf));
	if (seed && (seed[0] | seed[1] | seed[2] | seed[3]))
		memcpy(buf, seed, sizeof(buf));

	switch (version) {
	case EXT4_HASH_LEGACY:
	case EXT4_HASH_LEGACY_UNSIGNED:
		h = legacy_hash(p, len, is_unsigned);
		break;
	case EXT4_HASH_HALF_MD4:
	case EXT4_HASH_HALF_MD4_UNSIGNED:
		for (size_t off = 0; off < len; off += 32) {
			pack_words(p + off, len - off, in, 8, is_unsigned);
			half_md4(buf, in);
		}
		h = buf[1];
		minor = buf[2];
		break;
	case EXT4_HASH_TEA:
	case EXT4_HASH_TEA_UNSIGNED:
		for (size_t off = 0; off < len; off += 16) {
			pack_words(p + off, len - off, in, 4, is_unsigned);
			tea(buf, in);
		}
		h = buf[0];
		minor = buf[1];
		break;
	case EXT4_HASH_SIPHASH: {
		uint64_t k0, k1, v;

		if (!seed)
			return -EINVAL;
		k0 = seed[0] | (uint64_t)seed[1] << 32;
		k1 = seed[2] | (uint64_t)seed[3] << 32;
		v = siphash24(p, len, k0, k1);
		h = (uint32_t)(v >> 32);
		minor = (uint32_t)v;
		break;
	}
	default:
		return -EINVAL;
	}
	h &= ~1u;
	if (h == HTREE_EOF_32BIT << 1)
		h = (HTREE_EOF_32BIT - 1) << 1;
	*hash = h;
	if (minor_hash)
		*minor_hash = minor;
	return 0;
}

int ek_dx_hash_name(int version, bool fold, const char *name, size_t len,
		    const uint32_t seed[4], uint32_t *hash, uint32_t *minor_hash)
{
	/* as ext4fs_dirhash(): a name that does not fold hashes as its bytes */
	if (fold && len && version != EXT4_HASH_SIPHASH) {
		char buf[EK_CASEFOLD_MAX];
		int n = ek_utf8_casefold(name, len, buf, sizeof(buf));

		if (n >= 0)
			return ek_dx_hash(version, buf, (size_t)n, seed, hash, minor_hash);
	}
	return ek_dx_hash(version, name, len, seed, hash, minor_hash);
}

int ek_dx_hash_version(const struct ek_fs *fs, int v)
{
	if (v >= EXT4_HASH_LEGACY && v <= EXT4_HASH_TEA &&
	    (fs->sb.flags & EXT2_FLAGS_UNSIGNED_HASH))
		return v + EXT4_HASH_LEGACY_UNSIGNED;
	return v;
}
