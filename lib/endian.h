/* SPDX-License-Identifier: MIT */
/*
 * endian.h - typed little/big-endian on-disk integers and their accessors.
 *
 * On-disk fields are declared __le16/__le32/__le64/__be32...; under sparse
 * (`make sparse`) these are distinct "bitwise" types, so a field used without
 * le32_to_cpu() is a warning.  At computed offsets inside a buffer use
 * get_le32(p) / get_be32(p), which are alignment-safe (git compat/bswap.h).
 */
#ifndef EK_ENDIAN_H
#define EK_ENDIAN_H

#include <stdint.h>
#include <string.h>

/* __u8.. __u64, __le16.. __be64 (bitwise under sparse) */
#include <linux/types.h>

#ifdef __CHECKER__
#define __ek_force __attribute__((force))
#else
#define __ek_force
#endif

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ && __BYTE_ORDER__ != __ORDER_BIG_ENDIAN__
#error "unsupported byte order"
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define EK_LE(bits, x) ((__ek_force uint##bits##_t)(x))
#define EK_BE(bits, x) __builtin_bswap##bits((__ek_force uint##bits##_t)(x))
#else
#define EK_LE(bits, x) __builtin_bswap##bits((__ek_force uint##bits##_t)(x))
#define EK_BE(bits, x) ((__ek_force uint##bits##_t)(x))
#endif

static inline uint16_t le16_to_cpu(__le16 x) { return EK_LE(16, x); }
static inline uint32_t le32_to_cpu(__le32 x) { return EK_LE(32, x); }
static inline uint64_t le64_to_cpu(__le64 x) { return EK_LE(64, x); }
static inline uint16_t be16_to_cpu(__be16 x) { return EK_BE(16, x); }
static inline uint32_t be32_to_cpu(__be32 x) { return EK_BE(32, x); }
static inline uint64_t be64_to_cpu(__be64 x) { return EK_BE(64, x); }
static inline __le16 cpu_to_le16(uint16_t x) { return (__ek_force __le16)EK_LE(16, x); }
static inline __le32 cpu_to_le32(uint32_t x) { return (__ek_force __le32)EK_LE(32, x); }
static inline __le64 cpu_to_le64(uint64_t x) { return (__ek_force __le64)EK_LE(64, x); }
static inline __be16 cpu_to_be16(uint16_t x) { return (__ek_force __be16)EK_BE(16, x); }
static inline __be32 cpu_to_be32(uint32_t x) { return (__ek_force __be32)EK_BE(32, x); }
static inline __be64 cpu_to_be64(uint64_t x) { return (__ek_force __be64)EK_BE(64, x); }

static inline uint16_t get_le16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return EK_LE(16, v);
}

static inline uint32_t get_le32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return EK_LE(32, v);
}

static inline uint64_t get_le64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return EK_LE(64, v);
}

static inline uint16_t get_be16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return EK_BE(16, v);
}

static inline uint32_t get_be32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return EK_BE(32, v);
}

static inline uint64_t get_be64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return EK_BE(64, v);
}

static inline void put_le16(void *p, uint16_t x)
{
	uint16_t v = EK_LE(16, x);

	memcpy(p, &v, sizeof(v));
}

static inline void put_le32(void *p, uint32_t x)
{
	uint32_t v = EK_LE(32, x);

	memcpy(p, &v, sizeof(v));
}

static inline void put_le64(void *p, uint64_t x)
{
	uint64_t v = EK_LE(64, x);

	memcpy(p, &v, sizeof(v));
}

static inline void put_be16(void *p, uint16_t x)
{
	uint16_t v = EK_BE(16, x);

	memcpy(p, &v, sizeof(v));
}

static inline void put_be32(void *p, uint32_t x)
{
	uint32_t v = EK_BE(32, x);

	memcpy(p, &v, sizeof(v));
}

static inline void put_be64(void *p, uint64_t x)
{
	uint64_t v = EK_BE(64, x);

	memcpy(p, &v, sizeof(v));
}

#endif /* EK_ENDIAN_H */
