// SPDX-License-Identifier: MIT
/*
 * crc.c - checksums used by ext4 and jbd2.
 *
 * crc32c: Castagnoli polynomial, reflected (0x82F63B78), kernel convention:
 * the caller passes the seed and receives the raw register, no inversion
 * inside (ext4_chksum()).  The SSE4.2 crc32 instruction computes the same
 * function; the table path is slicing-by-8 and is the reference for tests.
 * crc16: poly 0x8005 reflected (0xA001), uninit_bg group descriptors.
 * crc32_be: poly 0x04C11DB7 MSB-first, jbd2 checksum v1.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include "extkit.h"

static uint32_t crc32c_table[8][256];
static uint16_t crc16_table[256];
static uint32_t crc32be_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;
static bool have_sse42;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82F63B78u & -(c & 1));
		crc32c_table[0][i] = c;

		uint16_t s = i;
		for (int k = 0; k < 8; k++)
			s = (s >> 1) ^ (0xA001 & -(s & 1));
		crc16_table[i] = s;

		uint32_t b = i << 24;
		for (int k = 0; k < 8; k++)
			b = (b << 1) ^ (0x04C11DB7u & -(b >> 31));
		crc32be_table[i] = b;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc32c_table[t][i] = (crc32c_table[t - 1][i] >> 8) ^
					     crc32c_table[0][crc32c_table[t - 1][i] & 0xFF];
#if defined(__x86_64__)
	__builtin_cpu_init();
	have_sse42 = __builtin_cpu_supports("sse4.2");
#endif
}

uint32_t ek_crc32c_sw(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	pthread_once(&crc_once, crc_init);
	while (len && ((uintptr_t)p & 7)) {
		crc = (crc >> 8) ^ crc32c_table[0][(crc ^ *p++) & 0xFF];
		len--;
	}
	while (len >= 8) {
		uint32_t lo = get_le32(p) ^ crc, hi = get_le32(p + 4);

		crc = crc32c_table[7][lo & 0xFF] ^ crc32c_table[6][(lo >> 8) & 0xFF] ^
		      crc32c_table[5][(lo >> 16) & 0xFF] ^ crc32c_table[4][lo >> 24] ^
		      crc32c_table[3][hi & 0xFF] ^ crc32c_table[2][(hi >> 8) & 0xFF] ^
		      crc32c_table[1][(hi >> 16) & 0xFF] ^ crc32c_table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ crc32c_table[0][(crc ^ *p++) & 0xFF];
	return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc32c_hw(uint32_t crc, const uint8_t *p, size_t len)
{
	uint64_t c = crc;

	while (len && ((uintptr_t)p & 7)) {
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
		len--;
	}
	while (len >= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
		p += 8;
		len -= 8;
	}
	while (len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return (uint32_t)c;
}
#endif

uint32_t ek_crc32c(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&crc_once, crc_init);
#if defined(__x86_64__)
	if (have_sse42)
		return crc32c_hw(crc, buf, len);
#endif
	return ek_crc32c_sw(crc, buf, len);
}

uint16_t ek_crc16(uint16_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	pthread_once(&crc_once, crc_init);
	while (len--)
		crc = (crc >> 8) ^ crc16_table[(crc ^ *p++) & 0xFF];
	return crc;
}

uint32_t ek_crc32_be(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	pthread_once(&crc_once, crc_init);
	while (len--)
		crc = (crc << 8) ^ crc32be_table[(crc >> 24) ^ *p++];
	return crc;
}
