// SPDX-License-Identifier: MIT
/*
 * replay_main.c - run a libFuzzer target over files without libFuzzer:
 * `make check` replays each target's seed corpus (tests/fuzz/seeds/NAME/)
 * under ASan+UBSan.  Arguments are files or directories.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		return perror(path), 1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n ? n : 1);
	if (!buf || fread(buf, 1, n, f) != (size_t)n) {
		fclose(f);
		free(buf);
		return fprintf(stderr, "%s: read failed\n", path), 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int count = 0, bad = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *de;

		if (stat(argv[i], &st) < 0)
			continue;
		if (!S_ISDIR(st.st_mode)) {
			bad |= run_file(argv[i]);
			count++;
			continue;
		}
		d = opendir(argv[i]);
		while (d && (de = readdir(d))) {
			char p[4096];

			if (de->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%s", argv[i], de->d_name);
			bad |= run_file(p);
			count++;
		}
		if (d)
			closedir(d);
	}
	printf("replayed %d inputs\n", count);
	return bad;
}
