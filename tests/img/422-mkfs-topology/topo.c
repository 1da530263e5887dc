/*
 * LD_PRELOAD stand-in for libblkid's topology answers (test 422): a loop
 * device has none worth the name (minimum I/O = its sector, no optimal
 * I/O), and device-mapper may be missing from the kernel.  Both mke2fs and
 * extkit-mkfs ask libblkid; this answers for both from EK_TOPO_MIN_IO,
 * EK_TOPO_OPT_IO and EK_TOPO_ALIGN (bytes), everything else is libblkid's.
 */
#include <stdlib.h>

typedef struct blkid_struct_topology *blkid_topology;

static unsigned long env(const char *name)
{
	const char *v = getenv(name);

	return v ? strtoul(v, NULL, 0) : 0;
}

unsigned long blkid_topology_get_minimum_io_size(blkid_topology tp)
{
	(void)tp;
	return env("EK_TOPO_MIN_IO");
}

unsigned long blkid_topology_get_optimal_io_size(blkid_topology tp)
{
	(void)tp;
	return env("EK_TOPO_OPT_IO");
}

unsigned long blkid_topology_get_alignment_offset(blkid_topology tp)
{
	(void)tp;
	return env("EK_TOPO_ALIGN");
}
